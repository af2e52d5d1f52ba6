import Essence2Runtime

extension CharacterPointFinder {
    /// The most samples a crop pixel averages along each axis (nil: as many as its footprint spans, so a large
    /// picture is box-filtered without aliasing). tools/character/common.py SAMPLES_CAP.
    static let samplesCap: Int? = 4

    /// The network's input for `box` of the picture: size x size x 4 values (channel-major R, G, B, A, each
    /// in 0...1 minus 0.5), every pixel the mean of k x k premultiplied bilinear samples (k = ceil(side / size), at
    /// most `samplesCap`), outside the picture transparent, the colour then composited over white; mirrored left
    /// to right when asked. The same as tools/character/common.py sample_crop.
    ///
    /// The mean of bilinear samples on a grid is separable: each axis is a matrix from source to crop indices
    /// (`CropAxis`), applied to the rows the crop touches and then down the columns, so the cost grows with the
    /// picture's pixels under the box, not with k squared.
    static func crop(_ picture: Picture, _ box: Box, size: Int, mirrored: Bool) -> [Float] {
        var k = max(1, Int((Double(box.side) / Double(size) - 1e-6).rounded(.up)))
        if let cap = samplesCap { k = min(k, cap) }
        let xs = CropAxis(origin: Double(box.x0), side: Double(box.side), size: size, samples: k, limit: picture.width)
        let ys = CropAxis(origin: Double(box.y0), side: Double(box.side), size: size, samples: k, limit: picture.height)
        let width = picture.width
        let plane = size * size
        var out = [Float](repeating: 0, count: 4 * plane)
        guard let rows = ys.span else {  // the box lies wholly above or below the picture: all transparent
            for d in 0..<plane { out[d] = 0.5; out[plane + d] = 0.5; out[2 * plane + d] = 0.5; out[3 * plane + d] = -0.5 }
            return out
        }
        // Each touched row filtered along x: rowsOut[(y - rows.lowerBound) * size + ox], premultiplied R, G, B, A.
        var filtered = [SIMD4<Float>](repeating: .zero, count: rows.count * size)
        picture.bgr.withUnsafeBufferPointer { bgr in
            let alphaBytes = picture.alpha ?? []
            alphaBytes.withUnsafeBufferPointer { alphaPointer in
                let hasAlpha = picture.alpha != nil
                filtered.withUnsafeMutableBufferPointer { dst in
                    for (r, y) in rows.enumerated() {
                        for ox in 0..<size {
                            var sum = SIMD4<Float>(repeating: 0)
                            let first = xs.first[ox]
                            for (j, w) in xs.weights[ox].enumerated() where w != 0 {
                                let i = y * width + first + j
                                let a: Float = hasAlpha ? Float(alphaPointer[i]) / 255 : 1
                                let rgb = SIMD3<Float>(Float(bgr[3 * i + 2]), Float(bgr[3 * i + 1]), Float(bgr[3 * i])) / 255
                                sum += SIMD4<Float>(rgb * a, a) * w
                            }
                            dst[r * size + ox] = sum
                        }
                    }
                }
            }
        }
        filtered.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for oy in 0..<size {
                    let first = ys.first[oy] - rows.lowerBound
                    for ox in 0..<size {
                        var sum = SIMD4<Float>(repeating: 0)
                        for (j, w) in ys.weights[oy].enumerated() where w != 0 {
                            sum += src[(first + j) * size + ox] * w
                        }
                        let a = sum.w
                        let tx = mirrored ? size - 1 - ox : ox
                        let d = oy * size + tx
                        dst[d] = sum.x + (1 - a) - 0.5
                        dst[plane + d] = sum.y + (1 - a) - 0.5
                        dst[2 * plane + d] = sum.z + (1 - a) - 0.5
                        dst[3 * plane + d] = a - 0.5
                    }
                }
            }
        }
        return out
    }
}
