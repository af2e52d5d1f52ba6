import Essence2Runtime

/// A prepared DEPTHWISE_CONV_2D: weights packed `[tap][channel]` (channels padded to 8), SIMD over channels.
struct TFLiteDepthwiseLayer: Sendable {
    var input: Int
    var output: Int
    var batch: Int
    var inChannels: Int
    var outChannels: Int
    var multiplier: Int
    var rows: TFLiteWindow
    var columns: TFLiteWindow
    /// `[ky][kx][padded channel]`.
    var weights: [Float]
    var bias: [Float]
    var activation: TFLiteActivation

    var paddedChannels: Int { (outChannels + 7) / 8 * 8 }

    var macs: Int { batch * rows.output * columns.output * rows.kernel * columns.kernel * outChannels }

    /// Packs a `[1, kh, kw, outChannels]` filter.
    init(input: Int, output: Int, batch: Int, inChannels: Int, outChannels: Int, rows: TFLiteWindow,
         columns: TFLiteWindow, filter: [Float], biasValues: [Float]?, activation: TFLiteActivation) {
        self.input = input
        self.output = output
        self.batch = batch
        self.inChannels = inChannels
        self.outChannels = outChannels
        self.multiplier = outChannels / inChannels
        self.rows = rows
        self.columns = columns
        self.activation = activation
        let padded = (outChannels + 7) / 8 * 8
        var packed = [Float](repeating: 0, count: rows.kernel * columns.kernel * padded)
        for tap in 0..<(rows.kernel * columns.kernel) {
            for c in 0..<outChannels { packed[tap * padded + c] = filter[tap * outChannels + c] }
        }
        weights = packed
        bias = TFLiteSIMD.padded(biasValues ?? [], to: padded)
    }

    func run(_ arena: UnsafeMutablePointer<Float>) {
        weights.withUnsafeBufferPointer { w in
            bias.withUnsafeBufferPointer { b in
                if multiplier == 1 {
                    runVectorised(arena, w.baseAddress!, b.baseAddress!)
                } else {
                    runScalar(arena, w.baseAddress!, b.baseAddress!)
                }
            }
        }
    }

    private func runVectorised(_ arena: UnsafeMutablePointer<Float>, _ w: UnsafePointer<Float>, _ b: UnsafePointer<Float>) {
        let c = outChannels, cp = paddedChannels, blocks = cp / 8
        let width = columns.input
        for n in 0..<batch {
            let source = arena + input + n * rows.input * width * c
            var dst = arena + output + n * rows.output * columns.output * c
            for oy in 0..<rows.output {
                let rowTaps = rows.taps(at: oy)
                let y0 = oy * rows.stride - rows.padBefore
                for ox in 0..<columns.output {
                    let colTaps = columns.taps(at: ox)
                    let x0 = ox * columns.stride - columns.padBefore
                    for block in 0..<blocks {
                        var acc = TFLiteSIMD.load(b + block * 8)
                        for ky in rowTaps {
                            let row = source + (y0 + ky * rows.dilation) * width * c + block * 8
                            let wrow = w + ky * columns.kernel * cp + block * 8
                            for kx in colTaps {
                                acc += TFLiteSIMD.load(row + (x0 + kx * columns.dilation) * c) * TFLiteSIMD.load(wrow + kx * cp)
                            }
                        }
                        TFLiteSIMD.store(activation.apply(acc), dst + block * 8, lanes: Swift.min(8, c - block * 8))
                    }
                    dst += c
                }
            }
        }
    }

    private func runScalar(_ arena: UnsafeMutablePointer<Float>, _ w: UnsafePointer<Float>, _ b: UnsafePointer<Float>) {
        let cin = inChannels, c = outChannels, cp = paddedChannels
        let width = columns.input
        for n in 0..<batch {
            let source = arena + input + n * rows.input * width * cin
            var dst = arena + output + n * rows.output * columns.output * c
            for oy in 0..<rows.output {
                let rowTaps = rows.taps(at: oy)
                let y0 = oy * rows.stride - rows.padBefore
                for ox in 0..<columns.output {
                    let colTaps = columns.taps(at: ox)
                    let x0 = ox * columns.stride - columns.padBefore
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
    }
}
