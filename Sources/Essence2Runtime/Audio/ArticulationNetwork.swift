import Glibc

/// The learned audio-to-articulation model's weights and its forward pass (trained by tools/lipsync/train.py).
///
/// Per hop: log-mel bands and `extraInputs` more values (the hop's level relative to the recent peak, from
/// `SpeechPeakTracker`, then its periodicity, from `PeriodicityAnalyzer`), normalised per input, through a dense
/// layer with ReLU, give a hop embedding. Per frame:
/// the embeddings of `contextHops` hops (`pastHops` before the frame, its 4 hops, 7 ahead), oldest first, through
/// two dense ReLU layers and a dense output layer give jaw (sigmoid), lip spread (tanh) and lip press (sigmoid).
/// Loops run in a fixed order on one thread, so the same input always gives the same bits.
struct ArticulationNetwork: Sendable {
    let bandCount: Int
    /// Inputs per hop after the bands: 0 (bands alone), 1 (relative level) or 2 (relative level, periodicity).
    let extraInputs: Int
    let embeddingSize: Int
    let contextHops: Int
    let pastHops: Int
    let hidden1: Int
    let hidden2: Int
    static let outputCount = 3

    /// Per input: `(x - inputMean) * inputScale` feeds the embedding.
    let inputMean: [Float]
    let inputScale: [Float]
    /// Weights are stored input-major: `w[i * outputs + o]` links input `i` to output `o`.
    let embedWeights: [Float]
    let embedBias: [Float]
    let layer1Weights: [Float]
    let layer1Bias: [Float]
    let layer2Weights: [Float]
    let layer2Bias: [Float]
    let outputWeights: [Float]
    let outputBias: [Float]

    /// Values in one frame's input window.
    var windowSize: Int { contextHops * embeddingSize }

    /// Inputs of one hop: the bands, then the extra inputs.
    var inputCount: Int { bandCount + extraInputs }
    /// Most extra inputs a network may take.
    static let maxExtraInputs = 2

    /// Hop embedding of `inputs` (`inputCount` values: the bands in dB, then the relative level in dB and the
    /// periodicity, as many as `extraInputs`) into `output` (`embeddingSize` values).
    func embed(_ inputs: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) {
        precondition(inputs.count >= inputCount && output.count >= embeddingSize, "embed: buffers too small")
        let outputs = embeddingSize
        guard let out = output.baseAddress, let input = inputs.baseAddress else { return }
        embedBias.withUnsafeBufferPointer { bias in
            for o in 0..<outputs { out[o] = bias[o] }
        }
        inputMean.withUnsafeBufferPointer { mean in
            inputScale.withUnsafeBufferPointer { scale in
                embedWeights.withUnsafeBufferPointer { w in
                    guard let weights = w.baseAddress else { return }
                    for i in 0..<inputCount {
                        let x = (input[i] - mean[i]) * scale[i]
                        Self.accumulate(x, weights + i &* outputs, into: out, count: outputs)
                    }
                }
            }
        }
        for o in 0..<outputs { out[o] = max(out[o], 0) }
    }

    /// Articulation of one frame from its window of hop embeddings (`windowSize` values, oldest hop first);
    /// `scratch` holds at least `hidden1 + hidden2` values.
    func evaluate(
        window: UnsafeBufferPointer<Float>, scratch: UnsafeMutableBufferPointer<Float>
    ) -> Articulation {
        let h1 = UnsafeMutableBufferPointer(rebasing: scratch[0..<hidden1])
        let h2 = UnsafeMutableBufferPointer(rebasing: scratch[hidden1..<(hidden1 + hidden2)])
        layer1Weights.withUnsafeBufferPointer { w in
            layer1Bias.withUnsafeBufferPointer { Self.dense(window, w, $0, into: h1) }
        }
        layer2Weights.withUnsafeBufferPointer { w in
            layer2Bias.withUnsafeBufferPointer { Self.dense(UnsafeBufferPointer(h1), w, $0, into: h2) }
        }
        var z: (Float, Float, Float) = (outputBias[0], outputBias[1], outputBias[2])
        outputWeights.withUnsafeBufferPointer { w in
            for i in 0..<hidden2 {
                let x = h2[i]
                let row = 3 &* i
                z.0 += w[row] * x
                z.1 += w[row &+ 1] * x
                z.2 += w[row &+ 2] * x
            }
        }
        return Articulation(jawOpen: Self.sigmoid(z.0), lipSpread: tanhf(z.1), lipPress: Self.sigmoid(z.2)).clamped()
    }

    /// `output = relu(bias + input · w)`, accumulated input by input (so the inner loop runs across outputs).
    private static func dense(
        _ input: UnsafeBufferPointer<Float>, _ w: UnsafeBufferPointer<Float>, _ bias: UnsafeBufferPointer<Float>,
        into output: UnsafeMutableBufferPointer<Float>
    ) {
        let outputs = output.count
        precondition(w.count >= input.count * outputs && bias.count >= outputs, "dense: weights too small")
        guard let out = output.baseAddress, let weights = w.baseAddress else { return }
        for o in 0..<outputs { out[o] = bias[o] }
        for i in 0..<input.count {
            let x = input[i]
            if x == 0 { continue }  // most inputs are ReLU outputs; skipping zeros changes no sum
            accumulate(x, weights + i &* outputs, into: out, count: outputs)
        }
        for o in 0..<outputs { out[o] = max(out[o], 0) }
    }

    /// `out[o] += row[o] * x` for o in 0..<count: the inner loop of every layer, on raw pointers so that it
    /// vectorises (each output keeps its own order of additions, so the bits do not change).
    @inline(__always)
    private static func accumulate(_ x: Float, _ row: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>, count: Int) {
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

    private static func sigmoid(_ x: Float) -> Float { 1 / (1 + expf(-x)) }
}
