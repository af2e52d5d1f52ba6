import Essence2Authoring

/// A decoded picture: packed B,G,R bytes, rows top to bottom, no padding.
struct ImageBuffer {
    var width: Int
    var height: Int
    var bgr: [UInt8]
    /// The JPEG's EXIF orientation applied while decoding (the pixels were turned or mirrored upright); nil
    /// when the pixels are as stored: no tag, tag 1, a malformed EXIF block, or a PNG.
    var orientation: ExifOrientation? = nil
    /// Opacity per pixel (255 opaque), for a PNG with transparency; `bgr` then holds the picture composited
    /// onto white. nil for an opaque picture.
    var alpha: [UInt8]? = nil
}
