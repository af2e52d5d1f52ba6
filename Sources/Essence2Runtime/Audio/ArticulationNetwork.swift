/// The learned audio-to-articulation model's weights and its forward pass (trained by tools/lipsync/train.py).
///
/// Per hop: log-mel bands and `extraInputs` more values (the hop's level relative to the recent peak, from
/// `SpeechPeakTracker`, then its periodicity, from `PeriodicityAnalyzer`), normalised per input, through a dense
/// layer with ReLU, give a hop embedding. Per frame:
/// the embeddings of `contextHops` hops (`pastHops` before the frame, its 4 hops, 7 ahead), oldest first, through
/// two dense ReLU layers and a dense output layer give jaw (sigmoid), lip spread (tanh), lip press (sigmoid) and, in a
/// network of 4 outputs, the lip tuck (sigmoid): the press is then the lips pressed together (p, b, m) alone and the
/// tuck the lower lip under the upper teeth (f, v), combined by `Articulation(learned:)`; a network of 3 outputs
/// (before the tuck had its own) presses 0.4 on f and v.
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
    /// 3 (jaw, spread, press) or 4 (and the tuck).
    let outputCount: Int
    /// The output counts a network may have.
    static let outputCounts = 3...4

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
    /// periodicity, as many as `extraInputs`) into `output` (`embeddingSize` values): the normalised inputs
    /// through `NeuralDense` with ReLU (no input skipped).
    func embed(_ inputs: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) {
        precondition(inputs.count >= inputCount && output.count >= embeddingSize, "embed: buffers too small")
        let out = UnsafeMutableBufferPointer(rebasing: output[0..<embeddingSize])
        withUnsafeTemporaryAllocation(of: Float.self, capacity: inputCount) { normalised in
            inputMean.withUnsafeBufferPointer { mean in
                inputScale.withUnsafeBufferPointer { scale in
                    for i in 0..<inputCount { normalised[i] = (inputs[i] - mean[i]) * scale[i] }
                }
            }
            embedWeights.withUnsafeBufferPointer { w in
                embedBias.withUnsafeBufferPointer { b in
                    NeuralDense.run(UnsafeBufferPointer(normalised), weights: w, bias: b, into: out, activation: .relu,
                                    skipZeros: false)
                }
            }
        }
    }

    /// The outputs for one frame from its window of hop embeddings (`windowSize` values, oldest hop first): jaw
    /// (0...1), spread (-1...1), press and tuck (0...1; the tuck 0 in a network of 3 outputs); `scratch` holds at
    /// least `hidden1 + hidden2` values. The hidden layers skip their zero inputs (most are, after a ReLU).
    func evaluate(
        window: UnsafeBufferPointer<Float>, scratch: UnsafeMutableBufferPointer<Float>
    ) -> SIMD4<Float> {
        let h1 = UnsafeMutableBufferPointer(rebasing: scratch[0..<hidden1])
        let h2 = UnsafeMutableBufferPointer(rebasing: scratch[hidden1..<(hidden1 + hidden2)])
        layer1Weights.withUnsafeBufferPointer { w in
            layer1Bias.withUnsafeBufferPointer {
                NeuralDense.run(window, weights: w, bias: $0, into: h1, activation: .relu, skipZeros: true)
            }
        }
        layer2Weights.withUnsafeBufferPointer { w in
            layer2Bias.withUnsafeBufferPointer {
                NeuralDense.run(UnsafeBufferPointer(h1), weights: w, bias: $0, into: h2, activation: .relu, skipZeros: true)
            }
        }
        return withUnsafeTemporaryAllocation(of: Float.self, capacity: outputCount) { z in
            outputWeights.withUnsafeBufferPointer { w in
                outputBias.withUnsafeBufferPointer {
                    NeuralDense.run(UnsafeBufferPointer(h2), weights: w, bias: $0, into: z, activation: .none,
                                    skipZeros: false)
                }
            }
            func unit(_ v: Float) -> Float { v.isFinite ? min(max(v, 0), 1) : 0 }
            let spread = NeuralActivation.tanh(z[1])
            return SIMD4(
                unit(NeuralActivation.sigmoid(z[0])), spread.isFinite ? min(max(spread, -1), 1) : 0,
                unit(NeuralActivation.sigmoid(z[2])), outputCount > 3 ? unit(NeuralActivation.sigmoid(z[3])) : 0)
        }
    }
}
