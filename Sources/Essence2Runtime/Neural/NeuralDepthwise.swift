/// A prepared depthwise 2-D convolution over one NHWC image: output channel `o` reads input channel `o /
/// multiplier` through its own kernel. Weights are packed `[ky][kx][channel]` (channels padded to 8): SIMD over
/// channels when the multiplier is 1, one channel at a time otherwise. Taps that fall in the padding are skipped
/// (they would add zeros).
package struct NeuralDepthwise: Sendable {
    package let inChannels: Int
    package let outChannels: Int
    package let multiplier: Int
    package let rows: NeuralWindow
    package let columns: NeuralWindow
    /// `[ky][kx][padded channel]`.
    package let weights: [Float]
    package let bias: [Float]
    package let activation: NeuralActivation

    /// Packs a `[kh][kw][outChannels]` filter (TensorFlow Lite's `[1, kh, kw, outChannels]`) and `bias`
    /// (`outChannels` values, nil: zeros); `outChannels` is a multiple of `inChannels`.
    package init(
        inChannels: Int, outChannels: Int, rows: NeuralWindow, columns: NeuralWindow, filter: [Float], bias: [Float]?,
        activation: NeuralActivation
    ) {
        precondition(inChannels > 0 && outChannels % inChannels == 0, "depthwise: channels do not fit")
        self.inChannels = inChannels
        self.outChannels = outChannels
        multiplier = outChannels / inChannels
        self.rows = rows
        self.columns = columns
        self.activation = activation
        let padded = NeuralSIMD.roundedUp(outChannels)
        var packed = [Float](repeating: 0, count: rows.kernel * columns.kernel * padded)
        for tap in 0..<(rows.kernel * columns.kernel) {
            for c in 0..<outChannels { packed[tap * padded + c] = filter[tap * outChannels + c] }
        }
        weights = packed
        self.bias = NeuralSIMD.padded(bias ?? [], to: padded)
    }

    /// Output channels rounded up to 8.
    package var paddedChannels: Int { NeuralSIMD.roundedUp(outChannels) }
    /// Values of one input image.
    package var inputCount: Int { rows.input * columns.input * inChannels }
    /// Values of one output image.
    package var outputCount: Int { rows.output * columns.output * outChannels }
    /// Multiply-accumulates per image.
    package var macs: Int { rows.output * columns.output * rows.kernel * columns.kernel * outChannels }

    /// Convolves one image: `input` holds `inputCount` values, `output` receives `outputCount`.
    package func run(_ input: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>) {
        weights.withUnsafeBufferPointer { w in
            bias.withUnsafeBufferPointer { b in
                if multiplier == 1 {
                    runVectorised(input, output, w.baseAddress!, b.baseAddress!)
                } else {
                    runScalar(input, output, w.baseAddress!, b.baseAddress!)
                }
            }
        }
    }

    private func runVectorised(
        _ source: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, _ w: UnsafePointer<Float>,
        _ b: UnsafePointer<Float>
    ) {
        let c = outChannels, cp = paddedChannels, blocks = cp / 8
        let width = columns.input
        var dst = output
        NeuralWindow.forEachOutput(rows: rows, columns: columns) { y0, x0, rowTaps, colTaps in
            for block in 0..<blocks {
                var acc = NeuralSIMD.load(b + block * 8)
                for ky in rowTaps {
                    let row = source + (y0 + ky * rows.dilation) * width * c + block * 8
                    let wrow = w + ky * columns.kernel * cp + block * 8
                    for kx in colTaps {
                        acc += NeuralSIMD.load(row + (x0 + kx * columns.dilation) * c) * NeuralSIMD.load(wrow + kx * cp)
                    }
                }
                NeuralSIMD.store(activation.apply(acc), dst + block * 8, lanes: Swift.min(8, c - block * 8))
            }
            dst += c
        }
    }

    private func runScalar(
        _ source: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, _ w: UnsafePointer<Float>,
        _ b: UnsafePointer<Float>
    ) {
        let cin = inChannels, c = outChannels, cp = paddedChannels
        let width = columns.input
        var dst = output
        NeuralWindow.forEachOutput(rows: rows, columns: columns) { y0, x0, rowTaps, colTaps in
            for oc in 0..<c {
                var acc = b[oc]
                let ic = oc / multiplier
                for ky in rowTaps {
                    for kx in colTaps {
                        let pixel = (y0 + ky * rows.dilation) * width + x0 + kx * columns.dilation
                        acc += source[pixel * cin + ic] * w[(ky * columns.kernel + kx) * cp + oc]
                    }
                }
                dst[oc] = activation.apply(acc)
            }
            dst += c
        }
    }
}
