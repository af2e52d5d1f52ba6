import Essence2Runtime

extension FaceImage {
    /// What a sample outside the image reads.
    enum Border {
        /// Black (MediaPipe's letterbox for the detector).
        case zero
        /// The nearest edge pixel (MediaPipe's default, used for the landmark crop).
        case replicate
    }

    /// An `outputWidth` x `outputHeight` R,G,B float tensor (rows top to bottom, channels last) sampled from
    /// the image along an affine grid: output pixel (i, j) reads the image at `origin + i * stepX + j * stepY`
    /// (image pixel (x, y) has its centre at (x, y)), and each byte value v becomes `v * scale + offset`.
    ///
    /// Sampling is bilinear in the fixed-point arithmetic of OpenCV's `warpAffine`/`warpPerspective` with
    /// INTER_LINEAR on 8-bit images, which MediaPipe's ImageToTensorCalculator uses on the CPU: the position
    /// is rounded to 1/32 pixel, the weights are integers summing to 1024, and the result is rounded to a
    /// whole byte before scaling. Reads straight from the bytes: no float copy of the image is made.
    func tensor(origin: SIMD2<Double>, stepX: SIMD2<Double>, stepY: SIMD2<Double>,
                outputWidth: Int, outputHeight: Int, border: Border, scale: Float, offset: Float) -> [Float] {
        var output = [Float](repeating: 0, count: outputWidth * outputHeight * 3)
        var table = [Float](repeating: 0, count: 256)
        for v in 0..<256 { table[v] = Float(v) * scale + offset }
        let width = self.width, height = self.height
        // Positions are kept well inside Int range; anything farther out is outside the image anyway.
        let limit = Double(4 * Self.maxSide)
        pixels.withUnsafeBufferPointer { src in
            output.withUnsafeMutableBufferPointer { dst in
                table.withUnsafeBufferPointer { lut in
                    var k = 0
                    for j in 0..<outputHeight {
                        let row = origin + Double(j) * stepY
                        for i in 0..<outputWidth {
                            let p = row + Double(i) * stepX
                            let sx = p.x.isFinite ? min(max(p.x, -limit), limit) : -limit
                            let sy = p.y.isFinite ? min(max(p.y, -limit), limit) : -limit
                            let fixedX = Int((sx * 32).rounded(.toNearestOrEven))
                            let fixedY = Int((sy * 32).rounded(.toNearestOrEven))
                            let x0 = fixedX >> 5, y0 = fixedY >> 5
                            let ax = fixedX & 31, ay = fixedY & 31
                            let w00 = (32 - ax) * (32 - ay), w01 = ax * (32 - ay)
                            let w10 = (32 - ax) * ay, w11 = ax * ay
                            var r = 0, g = 0, b = 0
                            if x0 >= 0, y0 >= 0, x0 + 1 < width, y0 + 1 < height {
                                let a = (y0 * width + x0) * 3, c = a + width * 3
                                b = w00 * Int(src[a]) + w01 * Int(src[a + 3]) + w10 * Int(src[c]) + w11 * Int(src[c + 3])
                                g = w00 * Int(src[a + 1]) + w01 * Int(src[a + 4]) + w10 * Int(src[c + 1]) + w11 * Int(src[c + 4])
                                r = w00 * Int(src[a + 2]) + w01 * Int(src[a + 5]) + w10 * Int(src[c + 2]) + w11 * Int(src[c + 5])
                            } else {
                                for tap in 0..<4 {
                                    let x = x0 + (tap & 1), y = y0 + (tap >> 1)
                                    let weight = tap == 0 ? w00 : tap == 1 ? w01 : tap == 2 ? w10 : w11
                                    if weight == 0 { continue }
                                    var xi = x, yi = y
                                    switch border {
                                    case .zero:
                                        if x < 0 || y < 0 || x >= width || y >= height { continue }
                                    case .replicate:
                                        xi = min(max(x, 0), width - 1)
                                        yi = min(max(y, 0), height - 1)
                                    }
                                    let a = (yi * width + xi) * 3
                                    b += weight * Int(src[a])
                                    g += weight * Int(src[a + 1])
                                    r += weight * Int(src[a + 2])
                                }
                            }
                            dst[k] = lut[(r + 512) >> 10]
                            dst[k + 1] = lut[(g + 512) >> 10]
                            dst[k + 2] = lut[(b + 512) >> 10]
                            k += 3
                        }
                    }
                }
            }
        }
        return output
    }
}
