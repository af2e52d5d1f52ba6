import Essence2Runtime

/// Resizes packed 8-bit images: bilinear when enlarging, area averaging when shrinking (per axis).
enum ImageResampler {
    /// Source taps of every output index along one axis, flattened: output `i` reads `count[i]` source
    /// pixels from `first[i]` on, with weights `weights[i * stride ..< i * stride + count[i]]` (summing to 1).
    private struct Taps {
        var first: [Int] = []
        var count: [Int] = []
        var weights: [Float] = []
        var stride = 0
    }

    /// `image` (`width` x `height`, `channels` interleaved bytes a pixel) resized to `newWidth` x `newHeight`.
    static func resize(_ image: [UInt8], width: Int, height: Int, channels: Int,
                       to newWidth: Int, _ newHeight: Int) -> [UInt8] {
        guard width > 0, height > 0, newWidth > 0, newHeight > 0, channels > 0,
              image.count == width * height * channels else {
            return [UInt8](repeating: 0, count: max(0, newWidth) * max(0, newHeight) * max(0, channels))
        }
        if width == newWidth, height == newHeight { return image }
        let xTaps = taps(from: width, to: newWidth)
        let yTaps = taps(from: height, to: newHeight)
        // Horizontal pass into floats, then vertical pass into bytes.
        var rows = [Float](repeating: 0, count: newWidth * height * channels)
        image.withUnsafeBufferPointer { src in
            rows.withUnsafeMutableBufferPointer { dst in
                xTaps.weights.withUnsafeBufferPointer { weights in
                    for y in 0..<height {
                        let srcRow = y * width * channels, dstRow = y * newWidth * channels
                        for x in 0..<newWidth {
                            let first = xTaps.first[x], count = xTaps.count[x], w0 = x * xTaps.stride
                            for c in 0..<channels {
                                var sum: Float = 0
                                var s = srcRow + first * channels + c
                                for k in 0..<count {
                                    sum += weights[w0 + k] * Float(src[s])
                                    s += channels
                                }
                                dst[dstRow + x * channels + c] = sum
                            }
                        }
                    }
                }
            }
        }
        var out = [UInt8](repeating: 0, count: newWidth * newHeight * channels)
        let rowLength = newWidth * channels
        rows.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                yTaps.weights.withUnsafeBufferPointer { weights in
                    var line = [Float](repeating: 0, count: rowLength)
                    line.withUnsafeMutableBufferPointer { line in
                        for y in 0..<newHeight {
                            let first = yTaps.first[y], count = yTaps.count[y], w0 = y * yTaps.stride
                            for i in 0..<rowLength { line[i] = 0 }
                            for k in 0..<count {
                                let weight = weights[w0 + k], base = (first + k) * rowLength
                                for i in 0..<rowLength { line[i] += weight * src[base + i] }
                            }
                            let outBase = y * rowLength
                            for i in 0..<rowLength { dst[outBase + i] = UInt8(min(max(line[i] + 0.5, 0), 255)) }
                        }
                    }
                }
            }
        }
        return out
    }

    /// Two bilinear taps when enlarging; when shrinking, the covered source pixels weighted by coverage.
    private static func taps(from source: Int, to target: Int) -> Taps {
        let ratio = Double(source) / Double(target)
        var result = Taps()
        result.stride = ratio <= 1 ? 2 : Int(ratio.rounded(.up)) + 1
        result.weights = [Float](repeating: 0, count: target * result.stride)
        for i in 0..<target {
            let base = i * result.stride
            if ratio <= 1 {
                let position = min(max((Double(i) + 0.5) * ratio - 0.5, 0), Double(source - 1))
                let left = min(Int(position), source - 1)
                let fraction = Float(position - Double(left))
                result.first.append(left)
                if left + 1 < source {
                    result.count.append(2)
                    result.weights[base] = 1 - fraction
                    result.weights[base + 1] = fraction
                } else {
                    result.count.append(1)
                    result.weights[base] = 1
                }
            } else {
                let start = Double(i) * ratio, end = Double(i + 1) * ratio
                let first = min(Int(start), source - 1)
                let last = min(max(first, Int((end - 1e-9).rounded(.down))), source - 1, first + result.stride - 1)
                var total: Float = 0
                for s in first...last {
                    let covered = Float(max(min(end, Double(s + 1)) - max(start, Double(s)), 0))
                    result.weights[base + s - first] = covered
                    total += covered
                }
                if total > 0 {
                    for k in 0...(last - first) { result.weights[base + k] /= total }
                } else {
                    result.weights[base] = 1
                }
                result.first.append(first)
                result.count.append(last - first + 1)
            }
        }
        return result
    }
}
