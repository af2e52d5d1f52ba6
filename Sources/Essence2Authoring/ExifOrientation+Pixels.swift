extension ExifOrientation {
    /// The displayed picture of packed pixels stored as `width` x `height` (`channels` interleaved bytes a
    /// pixel, rows top to bottom): the stored pixels transformed as this orientation says. Exact (a
    /// permutation of the pixels, nothing resampled); width and height swap for cases 5-8.
    /// - Returns: nil when a size is not positive or `pixels` does not hold `width * height * channels` bytes.
    package func upright(_ pixels: [UInt8], width: Int, height: Int, channels: Int)
        -> (pixels: [UInt8], width: Int, height: Int)? {
        let area = width.multipliedReportingOverflow(by: height)
        let bytes = area.partialValue.multipliedReportingOverflow(by: channels)
        guard width > 0, height > 0, channels > 0, !area.overflow, !bytes.overflow,
              pixels.count == bytes.partialValue else { return nil }
        if self == .identity { return (pixels, width, height) }
        let (outW, outH) = displayedSize(width: width, height: height)
        // Displayed pixel (x, y) is stored pixel first(y) + x * step (indices in pixels):
        //   2: (w-1-x, y)  3: (w-1-x, h-1-y)  4: (x, h-1-y)  5: (y, x)  6: (y, h-1-x)  7: (w-1-y, h-1-x)  8: (w-1-y, x)
        let step: Int
        let first: (Int) -> Int
        switch self {
        case .identity: step = 1; first = { y in y * width }
        case .mirrorHorizontal: step = -1; first = { y in y * width + width - 1 }
        case .rotate180: step = -1; first = { y in (height - 1 - y) * width + width - 1 }
        case .mirrorVertical: step = 1; first = { y in (height - 1 - y) * width }
        case .transpose: step = width; first = { y in y }
        case .rotate90Clockwise: step = -width; first = { y in (height - 1) * width + y }
        case .transverse: step = -width; first = { y in (height - 1) * width + width - 1 - y }
        case .rotate270Clockwise: step = width; first = { y in width - 1 - y }
        }
        var out = [UInt8](repeating: 0, count: pixels.count)
        // Every index stays in 0..<width*height by the formulas above (checked on all 8 cases by the tests);
        // the unsafe pointers only drop the per-byte bounds checks of this full-image loop.
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                guard let source = src.baseAddress, let target = dst.baseAddress else { return }
                var written = 0
                for y in 0..<outH {
                    var index = first(y)
                    for _ in 0..<outW {
                        let from = source + index * channels
                        for c in 0..<channels { target[written + c] = from[c] }
                        written += channels
                        index += step
                    }
                }
            }
        }
        return (out, outW, outH)
    }
}
