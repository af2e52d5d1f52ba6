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

    /// Articulation of one frame from its window of hop embeddings (`windowSize` values, oldest hop first);
    /// `scratch` holds at least `hidden1 + hidden2` values. The hidden layers skip their zero inputs (most are,
    /// after a ReLU).
    func evaluate(
        window: UnsafeBufferPointer<Float>, scratch: UnsafeMutableBufferPointer<Float>
    ) -> Articulation {
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
        return withUnsafeTemporaryAllocation(of: Float.self, capacity: Self.outputCount) { z in
            outputWeights.withUnsafeBufferPointer { w in
                outputBias.withUnsafeBufferPointer {
                    NeuralDense.run(UnsafeBufferPointer(h2), weights: w, bias: $0, into: z, activation: .none,
                                    skipZeros: false)
                }
            }
            return Articulation(jawOpen: NeuralActivation.sigmoid(z[0]), lipSpread: NeuralActivation.tanh(z[1]),
                                lipPress: NeuralActivation.sigmoid(z[2])).clamped()
        }
    }
}
