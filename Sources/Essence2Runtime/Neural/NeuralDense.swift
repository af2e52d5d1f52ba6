/// The dense layer (vector x matrix): `output[o] = activation(bias[o] + Σ_i input[i] · w[i][o])`, weights stored
/// input-major (`w[i * outputs + o]`), accumulated input by input so that the inner loop runs across the outputs
/// (SIMD8). Each output adds its terms in input order after its bias, on one thread, so the same input always gives
/// the same bits; `skipZeros` leaves out the inputs that are exactly zero (most are, after a ReLU), which changes
/// no sum of finite values except, at most, the sign of a zero.
package enum NeuralDense {
    /// Runs one dense layer; `weights` holds `input.count * output.count` values, `bias` `output.count`.
    package static func run(
        _ input: UnsafeBufferPointer<Float>, weights: UnsafeBufferPointer<Float>, bias: UnsafeBufferPointer<Float>,
        into output: UnsafeMutableBufferPointer<Float>, activation: NeuralActivation, skipZeros: Bool
    ) {
        let outputs = output.count
        precondition(weights.count >= input.count * outputs && bias.count >= outputs, "dense: weights too small")
        guard let out = output.baseAddress, let w = weights.baseAddress else { return }
        for o in 0..<outputs { out[o] = bias[o] }
        for i in 0..<input.count {
            let x = input[i]
            if skipZeros && x == 0 { continue }
            accumulate(x, w + i &* outputs, into: out, count: outputs)
        }
        if !activation.isNone {
            for o in 0..<outputs { out[o] = activation.apply(out[o]) }
        }
    }

    /// `out[o] += row[o] * x` for o in 0..<count, on raw pointers so that it vectorises (each output keeps its own
    /// order of additions, so the bits do not change).
    @inline(__always)
    static func accumulate(_ x: Float, _ row: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>, count: Int) {
        let lanes = count & ~7
        let xs = SIMD8<Float>(repeating: x)
        let source = UnsafeRawPointer(row), target = UnsafeMutableRawPointer(out)
        var o = 0
        while o < lanes {
            let offset = o &* MemoryLayout<Float>.stride
            let sum = target.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
                + source.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self) * xs
            target.storeBytes(of: sum, toByteOffset: offset, as: SIMD8<Float>.self)
            o &+= 8
        }
        while o < count {
            out[o] += row[o] * x
            o &+= 1
        }
    }
}
