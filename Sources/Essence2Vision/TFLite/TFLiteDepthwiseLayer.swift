import Essence2Runtime

/// A prepared DEPTHWISE_CONV_2D: the runtime's `NeuralDepthwise` over each image of the batch, tensors at arena
/// offsets.
struct TFLiteDepthwiseLayer: Sendable {
    var input: Int
    var output: Int
    var batch: Int
    var kernel: NeuralDepthwise

    /// Multiply-accumulates per run.
    var macs: Int { batch * kernel.macs }
    /// Packed weight values.
    var weightCount: Int { kernel.weights.count }

    /// Packs a `[1, kh, kw, outChannels]` filter.
    init(input: Int, output: Int, batch: Int, inChannels: Int, outChannels: Int, rows: NeuralWindow,
         columns: NeuralWindow, filter: [Float], biasValues: [Float]?, activation: NeuralActivation) {
        self.input = input
        self.output = output
        self.batch = batch
        kernel = NeuralDepthwise(inChannels: inChannels, outChannels: outChannels, rows: rows, columns: columns,
                                 filter: filter, bias: biasValues, activation: activation)
    }

    func run(_ arena: UnsafeMutablePointer<Float>) {
        for n in 0..<batch {
            kernel.run(arena + input + n * kernel.inputCount, into: arena + output + n * kernel.outputCount)
        }
    }
}
