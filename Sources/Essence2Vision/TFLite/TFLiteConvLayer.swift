import Essence2Runtime

/// A prepared CONV_2D: weights packed for an 8-wide output-channel GEMM; general kernels gather their
/// receptive fields into scratch (im2col) first, 1x1 stride-1 unpadded ones multiply the input directly.
struct TFLiteConvLayer: Sendable {
    var input: Int
    var output: Int
    var batch: Int
    var inChannels: Int
    var outChannels: Int
    var rows: TFLiteWindow
    var columns: TFLiteWindow
    /// Length of one gathered receptive field: kernel height * kernel width * input channels.
    var depth: Int
    /// `[block][depth][8]`: output channels in blocks of 8, zero-padded.
    var weights: [Float]
    /// Bias per output channel, zero-padded to a multiple of 8.
    var bias: [Float]
    var activation: TFLiteActivation

    /// 1x1 kernel, stride 1, no padding: the input already is the GEMM's left matrix.
    var isPointwise: Bool {
        rows.kernel == 1 && columns.kernel == 1 && rows.stride == 1 && columns.stride == 1
            && rows.padBefore == 0 && columns.padBefore == 0 && rows.output == rows.input && columns.output == columns.input
    }

    /// Floats of scratch needed for im2col.
    var scratchCount: Int { isPointwise ? 0 : rows.output * columns.output * depth }

    /// Multiply-accumulates per run.
    var macs: Int { batch * rows.output * columns.output * depth * outChannels }

    /// Packs OHWI `filter` values and optional `biasValues`.
    init(input: Int, output: Int, batch: Int, inChannels: Int, outChannels: Int, rows: TFLiteWindow,
         columns: TFLiteWindow, filter: [Float], biasValues: [Float]?, activation: TFLiteActivation) {
        self.input = input
        self.output = output
        self.batch = batch
        self.inChannels = inChannels
        self.outChannels = outChannels
        self.rows = rows
        self.columns = columns
        self.activation = activation
        let depth = rows.kernel * columns.kernel * inChannels
        self.depth = depth
        let blocks = (outChannels + 7) / 8
        var packed = [Float](repeating: 0, count: blocks * depth * 8)
        for o in 0..<outChannels {
            let base = (o / 8) * depth * 8 + o % 8
            for k in 0..<depth { packed[base + k * 8] = filter[o * depth + k] }
        }
        weights = packed
        bias = TFLiteSIMD.padded(biasValues ?? [], to: blocks * 8)
    }

    func run(_ arena: UnsafeMutablePointer<Float>, _ scratch: UnsafeMutablePointer<Float>) {
        let inPlane = rows.input * columns.input * inChannels
        let pixels = rows.output * columns.output
        weights.withUnsafeBufferPointer { w in
            bias.withUnsafeBufferPointer { b in
                for n in 0..<batch {
                    let source = UnsafePointer(arena + input + n * inPlane)
                    let left: UnsafePointer<Float>
                    if isPointwise {
                        left = source
                    } else {
                        gather(source, into: scratch)
                        left = UnsafePointer(scratch)
                    }
                    Self.gemm(left, rows: pixels, depth: depth, weights: w.baseAddress!, bias: b.baseAddress!,
                              out: arena + output + n * pixels * outChannels, outChannels: outChannels,
                              activation: activation)
                }
            }
        }
    }

    /// im2col: one row of `depth` values per output pixel, zeros where the kernel overhangs the input.
    private func gather(_ source: UnsafePointer<Float>, into scratch: UnsafeMutablePointer<Float>) {
        let c = inChannels
        var dst = scratch
        for oy in 0..<rows.output {
            let y0 = oy * rows.stride - rows.padBefore
            for ox in 0..<columns.output {
                let x0 = ox * columns.stride - columns.padBefore
                for ky in 0..<rows.kernel {
                    let iy = y0 + ky * rows.dilation
                    for kx in 0..<columns.kernel {
                        let ix = x0 + kx * columns.dilation
                        if iy >= 0, iy < rows.input, ix >= 0, ix < columns.input {
                            dst.update(from: source + (iy * columns.input + ix) * c, count: c)
                        } else {
                            dst.update(repeating: 0, count: c)
                        }
                        dst += c
                    }
                }
            }
        }
    }

    /// out[p][o] = activation(bias[o] + sum_k a[p][k] * w[k][o]), four rows by eight channels at a time.
    static func gemm(_ a: UnsafePointer<Float>, rows: Int, depth: Int, weights: UnsafePointer<Float>,
                     bias: UnsafePointer<Float>, out: UnsafeMutablePointer<Float>, outChannels: Int,
                     activation: TFLiteActivation) {
        let blocks = (outChannels + 7) / 8
        var p = 0
        while p + 4 <= rows {
            let a0 = a + p * depth, a1 = a0 + depth, a2 = a1 + depth, a3 = a2 + depth
            for block in 0..<blocks {
                let start = bias + block * 8
                var c0 = TFLiteSIMD.load(start), c1 = c0, c2 = c0, c3 = c0
                var w = weights + block * depth * 8
                for k in 0..<depth {
                    let wv = TFLiteSIMD.load(w)
                    c0 += wv * a0[k]
                    c1 += wv * a1[k]
                    c2 += wv * a2[k]
                    c3 += wv * a3[k]
                    w += 8
                }
                let lanes = Swift.min(8, outChannels - block * 8)
                let o = out + p * outChannels + block * 8
                TFLiteSIMD.store(activation.apply(c0), o, lanes: lanes)
                TFLiteSIMD.store(activation.apply(c1), o + outChannels, lanes: lanes)
                TFLiteSIMD.store(activation.apply(c2), o + 2 * outChannels, lanes: lanes)
                TFLiteSIMD.store(activation.apply(c3), o + 3 * outChannels, lanes: lanes)
            }
            p += 4
        }
        while p < rows {
            let a0 = a + p * depth
            for block in 0..<blocks {
                var c0 = TFLiteSIMD.load(bias + block * 8)
                var w = weights + block * depth * 8
                for k in 0..<depth {
                    c0 += TFLiteSIMD.load(w) * a0[k]
                    w += 8
                }
                let lanes = Swift.min(8, outChannels - block * 8)
                TFLiteSIMD.store(activation.apply(c0), out + p * outChannels + block * 8, lanes: lanes)
            }
            p += 1
        }
    }
}
