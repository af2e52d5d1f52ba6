/// A decoded picture: packed B,G,R bytes, rows top to bottom, no padding.
struct ImageBuffer {
    var width: Int
    var height: Int
    var bgr: [UInt8]
}
