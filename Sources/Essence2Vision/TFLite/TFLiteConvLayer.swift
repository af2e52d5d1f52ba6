import Essence2Runtime

/// A prepared CONV_2D: the runtime's `NeuralConvolution` (OHWI filters, packed for its 8-wide GEMM) over each image
/// of the batch, tensors at arena offsets.
struct TFLiteConvLayer: Sendable {
    var input: Int
    var output: Int
    var batch: Int
    var kernel: NeuralConvolution

    /// Floats of scratch needed for im2col.
    var scratchCount: Int { kernel.scratchCount }
    /// Multiply-accumulates per run.
    var macs: Int { batch * kernel.macs }
    /// Packed weight values.
    var weightCount: Int { kernel.weights.count }

    /// Packs OHWI `filter` values and optional `biasValues`.
    init(input: Int, output: Int, batch: Int, inChannels: Int, outChannels: Int, rows: NeuralWindow,
         columns: NeuralWindow, filter: [Float], biasValues: [Float]?, activation: NeuralActivation) {
        self.input = input
        self.output = output
        self.batch = batch
        kernel = NeuralConvolution(inChannels: inChannels, outChannels: outChannels, rows: rows, columns: columns,
                                   order: .tapsThenChannels, filter: filter, bias: biasValues, activation: activation)
    }

    func run(_ arena: UnsafeMutablePointer<Float>, _ scratch: UnsafeMutablePointer<Float>) {
        for n in 0..<batch {
            kernel.run(arena + input + n * kernel.inputCount, into: arena + output + n * kernel.outputCount,
                       scratch: scratch)
        }
    }
}
