/// Writes B,G,R frames as a YUV4MPEG2 stream (4:2:0, BT.601 limited range, 25 fps).
final class Y4MWriter {
    let width: Int
    let height: Int
    private let file: OutputFile
    private var planes: [UInt8]

    /// The stream header for frames of `width` x `height` at 25 fps.
    static func header(width: Int, height: Int, framesPerSecond: Int = 25) -> String {
        "YUV4MPEG2 W\(width) H\(height) F\(framesPerSecond):1 Ip A1:1 C420jpeg XYSCSS=420JPEG\n"
    }

    /// Bytes of one frame's planes: full-size Y, then U and V at half size rounded up.
    static func planeBytes(width: Int, height: Int) -> Int {
        width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)
    }

    /// Starts the stream in `file` (which the caller closes or commits).
    init(file: OutputFile, width: Int, height: Int, framesPerSecond: Int = 25) throws(CLIError) {
        self.width = width
        self.height = height
        self.file = file
        planes = [UInt8](repeating: 0, count: Self.planeBytes(width: width, height: height))
        try file.write(Array(Self.header(width: width, height: height, framesPerSecond: framesPerSecond).utf8))
    }

    /// Appends one frame of `width * height * 3` bytes, B,G,R.
    func append(bgr: UnsafeRawBufferPointer) throws(CLIError) {
        planes.withUnsafeMutableBufferPointer { Self.convert(bgr: bgr, width: width, height: height, into: $0) }
        try file.write(Array("FRAME\n".utf8))
        try planes.withUnsafeBufferPointer { (buffer) throws(CLIError) in try file.write(UnsafeRawBufferPointer(buffer)) }
    }


    /// B,G,R to planar Y, U, V (4:2:0: chroma from the average of each 2x2 block), BT.601 limited range.
    /// Runs on raw pointers with wrapping arithmetic (the values are bounded bytes), so it vectorises.
    static func convert(bgr: UnsafeRawBufferPointer, width: Int, height: Int, into out: UnsafeMutableBufferPointer<UInt8>) {
        precondition(bgr.count >= width * height * 3 && out.count >= planeBytes(width: width, height: height),
                     "Y4MWriter.convert: buffers smaller than a frame")
        guard width > 0, height > 0, let base = bgr.baseAddress, let planes = out.baseAddress else { return }
        let src = base.assumingMemoryBound(to: UInt8.self)
        for y in 0..<height {
            let row = src + y &* width &* 3
            let luma = planes + y &* width
            for x in 0..<width {
                let p = row + x &* 3
                let b = Int32(p[0]), g = Int32(p[1]), r = Int32(p[2])
                luma[x] = UInt8(truncatingIfNeeded: ((66 &* r &+ 129 &* g &+ 25 &* b &+ 128) >> 8) &+ 16)
            }
        }
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        let uPlane = planes + width * height, vPlane = uPlane + cw * ch
        for cy in 0..<ch {
            let y0 = cy &* 2, rows = min(2, height &- y0)
            for cx in 0..<cw {
                let x0 = cx &* 2, columns = min(2, width &- x0)
                var b: Int32 = 0, g: Int32 = 0, r: Int32 = 0
                for dy in 0..<rows {
                    let p = src + ((y0 &+ dy) &* width &+ x0) &* 3
                    for dx in 0..<columns {
                        b &+= Int32(p[dx &* 3]); g &+= Int32(p[dx &* 3 &+ 1]); r &+= Int32(p[dx &* 3 &+ 2])
                    }
                }
                let n = Int32(truncatingIfNeeded: rows &* columns)
                b = (b &+ n / 2) / n; g = (g &+ n / 2) / n; r = (r &+ n / 2) / n
                let u = ((-38 &* r &- 74 &* g &+ 112 &* b &+ 128) >> 8) &+ 128
                let v = ((112 &* r &- 94 &* g &- 18 &* b &+ 128) >> 8) &+ 128
                uPlane[cy &* cw &+ cx] = UInt8(clamping: u)
                vPlane[cy &* cw &+ cx] = UInt8(clamping: v)
            }
        }
    }
}
