/// A prepared 2-D convolution over one NHWC image (`rows.input x columns.input x inChannels` in, `rows.output x
/// columns.output x outChannels` out), any kernel, stride, dilation and zero padding: each output pixel's receptive
/// field is gathered into scratch (im2col, `NeuralConvolution+Gather.swift`) and the rows multiplied by the packed
/// weights (`NeuralGEMM`); a 1x1, stride 1, unpadded kernel multiplies the input directly.
///
/// The filter is `[outChannels][depth]`, each receptive field in `order`: TensorFlow Lite's OHWI filters
/// (`tapsThenChannels`) or PyTorch's OIHW (`channelsThenTaps`); the order fixes the order in which each output adds
/// its terms, so a network keeps the sums it was written for.
package struct NeuralConvolution: Sendable {
    /// The order of one receptive field's `depth` values (and of the filter's values per output channel).
    package enum FieldOrder: Sendable {
        /// `[ky][kx][channel]` (OHWI filters, TensorFlow Lite).
        case tapsThenChannels
        /// `[channel][ky][kx]` (OIHW filters, PyTorch).
        case channelsThenTaps
    }

    package let inChannels: Int
    package let outChannels: Int
    package let rows: NeuralWindow
    package let columns: NeuralWindow
    package let order: FieldOrder
    /// Length of one gathered receptive field: kernel height * kernel width * input channels.
    package let depth: Int
    /// `NeuralGEMM.pack`'s `[block][depth][8]`.
    package let weights: [Float]
    /// Bias per output channel, zero-padded to a multiple of 8.
    package let bias: [Float]
    package let activation: NeuralActivation

    /// Packs `filter` (`outChannels * depth` values in `order`) and `bias` (`outChannels` values, nil: zeros).
    package init(
        inChannels: Int, outChannels: Int, rows: NeuralWindow, columns: NeuralWindow, order: FieldOrder,
        filter: [Float], bias: [Float]?, activation: NeuralActivation
    ) {
        self.inChannels = inChannels
        self.outChannels = outChannels
        self.rows = rows
        self.columns = columns
        self.order = order
        self.activation = activation
        depth = rows.kernel * columns.kernel * inChannels
        weights = NeuralGEMM.pack(filter, outChannels: outChannels, depth: depth)
        self.bias = NeuralSIMD.padded(bias ?? [], to: NeuralSIMD.roundedUp(outChannels))
    }

    /// 1x1 kernel, stride 1, no padding: the input already is the GEMM's left matrix.
    package var isPointwise: Bool {
        rows.kernel == 1 && columns.kernel == 1 && rows.stride == 1 && columns.stride == 1
            && rows.padBefore == 0 && columns.padBefore == 0 && rows.output == rows.input
            && columns.output == columns.input
    }

    /// Values of one input image.
    package var inputCount: Int { rows.input * columns.input * inChannels }
    /// Values of one output image.
    package var outputCount: Int { rows.output * columns.output * outChannels }
    /// Floats of scratch `run` needs (for im2col).
    package var scratchCount: Int { isPointwise ? 0 : rows.output * columns.output * depth }
    /// Multiply-accumulates per image.
    package var macs: Int { rows.output * columns.output * depth * outChannels }

    /// Convolves one image: `input` holds `inputCount` values, `output` receives `outputCount`, `scratch` holds
    /// `scratchCount` (unused for a pointwise kernel).
    package func run(_ input: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>,
                     scratch: UnsafeMutablePointer<Float>?) {
        let left: UnsafePointer<Float>
        if isPointwise {
            left = input
        } else {
            guard let scratch else { preconditionFailure("convolution: scratch needed") }
            gather(input, into: scratch)
            left = UnsafePointer(scratch)
        }
        weights.withUnsafeBufferPointer { w in
            bias.withUnsafeBufferPointer { b in
                NeuralGEMM.run(left, rows: rows.output * columns.output, depth: depth, weights: w.baseAddress!,
                               bias: b.baseAddress!, out: output, outChannels: outChannels, activation: activation)
            }
        }
    }
}
