/// The packed-weight matrix product every convolution runs on: `out[p][o] = activation(bias[o] + Σ_k a[p][k] ·
/// w[k][o])` for `rows` rows `p` of `depth` values each, the output channels in blocks of 8 (one SIMD8 each) and
/// the rows four at a time. Each output adds its terms in `k` order after the bias, so the result does not depend
/// on the blocking (the same input always gives the same bits).
package enum NeuralGEMM {
    /// Weights `filter[o * depth + k]` (output channel major) packed as `[block][k][8]`: output channels in blocks
    /// of 8, the last block zero-padded.
    package static func pack(_ filter: [Float], outChannels: Int, depth: Int) -> [Float] {
        precondition(filter.count >= outChannels * depth, "pack: filter too small")
        let blocks = (outChannels + 7) / 8
        var packed = [Float](repeating: 0, count: blocks * depth * 8)
        filter.withUnsafeBufferPointer { source in
            packed.withUnsafeMutableBufferPointer { target in
                for o in 0..<outChannels {
                    let base = (o / 8) * depth * 8 + o % 8, row = o * depth
                    for k in 0..<depth { target[base + k * 8] = source[row + k] }
                }
            }
        }
        return packed
    }

    /// Runs the product: `a` holds `rows * depth` values, `weights` is `pack`'s output, `bias` holds
    /// `outChannels` rounded up to 8 values, `out` receives `rows * outChannels` values.
    package static func run(
        _ a: UnsafePointer<Float>, rows: Int, depth: Int, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
        out: UnsafeMutablePointer<Float>, outChannels: Int, activation: NeuralActivation
    ) {
        let blocks = (outChannels + 7) / 8
        var p = 0
        while p + 4 <= rows {
            let a0 = a + p * depth, a1 = a0 + depth, a2 = a1 + depth, a3 = a2 + depth
            for block in 0..<blocks {
                let start = bias + block * 8
                var c0 = NeuralSIMD.load(start), c1 = c0, c2 = c0, c3 = c0
                var w = weights + block * depth * 8
                for k in 0..<depth {
                    let wv = NeuralSIMD.load(w)
                    c0 += wv * a0[k]
                    c1 += wv * a1[k]
                    c2 += wv * a2[k]
                    c3 += wv * a3[k]
                    w += 8
                }
                let lanes = Swift.min(8, outChannels - block * 8)
                let o = out + p * outChannels + block * 8
                NeuralSIMD.store(activation.apply(c0), o, lanes: lanes)
                NeuralSIMD.store(activation.apply(c1), o + outChannels, lanes: lanes)
                NeuralSIMD.store(activation.apply(c2), o + 2 * outChannels, lanes: lanes)
                NeuralSIMD.store(activation.apply(c3), o + 3 * outChannels, lanes: lanes)
            }
            p += 4
        }
        while p < rows {
            let a0 = a + p * depth
            for block in 0..<blocks {
                var c0 = NeuralSIMD.load(bias + block * 8)
                var w = weights + block * depth * 8
                for k in 0..<depth {
                    c0 += NeuralSIMD.load(w) * a0[k]
                    w += 8
                }
                let lanes = Swift.min(8, outChannels - block * 8)
                NeuralSIMD.store(activation.apply(c0), out + p * outChannels + block * 8, lanes: lanes)
            }
            p += 1
        }
    }
}
