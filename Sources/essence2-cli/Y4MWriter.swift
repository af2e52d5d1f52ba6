/// Writes B,G,R frames as a YUV4MPEG2 stream (4:2:0, BT.601 limited range, 25 fps).
final class Y4MWriter {
    let width: Int
    let height: Int
    private let file: OutputFile
    private var planes: [UInt8]

    /// The stream header for frames of `width` x `height` at 25 fps.
    static func header(width: Int, height: Int) -> String {
        "YUV4MPEG2 W\(width) H\(height) F25:1 Ip A1:1 C420jpeg XYSCSS=420JPEG\n"
    }

    /// Bytes of one frame's planes: full-size Y, then U and V at half size rounded up.
    static func planeBytes(width: Int, height: Int) -> Int {
        width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)
    }

    init(path: String, width: Int, height: Int) throws(CLIError) {
        self.width = width
        self.height = height
        file = try OutputFile(creating: path)
        planes = [UInt8](repeating: 0, count: Self.planeBytes(width: width, height: height))
        try file.write(Array(Self.header(width: width, height: height).utf8))
    }

    /// Appends one frame of `width * height * 3` bytes, B,G,R.
    func append(bgr: UnsafeRawBufferPointer) throws(CLIError) {
        planes.withUnsafeMutableBufferPointer { Self.convert(bgr: bgr, width: width, height: height, into: $0) }
        try file.write(Array("FRAME\n".utf8))
        try planes.withUnsafeBufferPointer { (buffer) throws(CLIError) in try file.write(UnsafeRawBufferPointer(buffer)) }
    }

    func finish() throws(CLIError) { try file.close() }

    /// B,G,R to planar Y, U, V (4:2:0: chroma from the average of each 2x2 block), BT.601 limited range.
    static func convert(bgr: UnsafeRawBufferPointer, width: Int, height: Int, into out: UnsafeMutableBufferPointer<UInt8>) {
        let src = bgr.bindMemory(to: UInt8.self)
        for y in 0..<height {
            let row = y * width * 3
            for x in 0..<width {
                let p = row + x * 3
                let b = Int(src[p]), g = Int(src[p + 1]), r = Int(src[p + 2])
                out[y * width + x] = UInt8(((66 * r + 129 * g + 25 * b + 128) >> 8) + 16)
            }
        }
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        let uBase = width * height, vBase = uBase + cw * ch
        for cy in 0..<ch {
            for cx in 0..<cw {
                var b = 0, g = 0, r = 0, n = 0
                for y in (cy * 2)..<min(cy * 2 + 2, height) {
                    for x in (cx * 2)..<min(cx * 2 + 2, width) {
                        let p = (y * width + x) * 3
                        b += Int(src[p]); g += Int(src[p + 1]); r += Int(src[p + 2]); n += 1
                    }
                }
                b = (b + n / 2) / n; g = (g + n / 2) / n; r = (r + n / 2) / n
                out[uBase + cy * cw + cx] = UInt8(clamping: ((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128)
                out[vBase + cy * cw + cx] = UInt8(clamping: ((112 * r - 94 * g - 18 * b + 128) >> 8) + 128)
            }
        }
    }
}
