import Essence2Runtime

/// Small image operations on packed 8-bit images (rows top to bottom, `channels` interleaved bytes a pixel).
enum ImageFilters {
    /// Blurs in place with a (2 radius + 1)-wide box, horizontally then vertically, clamping at the edges.
    static func boxBlur(_ image: inout [UInt8], width: Int, height: Int, channels: Int, radius: Int) {
        guard radius > 0, width > 0, height > 0, image.count == width * height * channels else { return }
        let window = 2 * radius + 1
        var line = [Int32](repeating: 0, count: max(width, height))
        image.withUnsafeMutableBufferPointer { pixels in
            line.withUnsafeMutableBufferPointer { line in
                for c in 0..<channels {
                    for y in 0..<height {
                        blurLine(pixels, line, start: (y * width) * channels + c, stride: channels, count: width,
                                 radius: radius, window: window)
                    }
                    for x in 0..<width {
                        blurLine(pixels, line, start: x * channels + c, stride: width * channels, count: height,
                                 radius: radius, window: window)
                    }
                }
            }
        }
    }

    private static func blurLine(_ pixels: UnsafeMutableBufferPointer<UInt8>, _ line: UnsafeMutableBufferPointer<Int32>,
                                 start: Int, stride: Int, count: Int, radius: Int, window: Int) {
        for i in 0..<count { line[i] = Int32(pixels[start + i * stride]) }
        let last = count - 1
        var sum: Int32 = 0
        for k in -radius...radius { sum += line[min(max(k, 0), last)] }
        let half = Int32(window / 2)
        for i in 0..<count {
            pixels[start + i * stride] = UInt8((sum + half) / Int32(window))
            sum += line[min(i + radius + 1, last)] - line[max(i - radius, 0)]
        }
    }
}
