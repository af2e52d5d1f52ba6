import Essence2Runtime

extension CharacterNetwork {
    /// Runs the network on `input` (4 x size x size, channel-major); returns `outputCount` values. The feature maps
    /// are NHWC between the convolutions; a dense layer or the heads read them channel-major.
    package func run(_ input: [Float]) -> [Float] {
        var x = Self.interleaved(input, channels: 4, side: size)
        var spatial = true  // x holds side x side x channels maps (else a flat vector)
        var channels = 4, side = size
        var scratch = [Float](repeating: 0, count: layers.map { $0.convolution?.scratchCount ?? 0 }.max() ?? 0)
        for layer in layers {
            switch layer.kind {
            case .convolution, .dilatedConvolution:
                guard let convolution = layer.convolution else { continue }
                var out = [Float](repeating: 0, count: convolution.outputCount)
                x.withUnsafeBufferPointer { source in
                    out.withUnsafeMutableBufferPointer { target in
                        scratch.withUnsafeMutableBufferPointer {
                            convolution.run(source.baseAddress!, into: target.baseAddress!, scratch: $0.baseAddress)
                        }
                    }
                }
                x = out
                channels = convolution.outChannels
                side = convolution.rows.output
            case .dense:
                if spatial { x = Self.planar(x, channels: channels, side: side) }
                spatial = false
                var out = [Float](repeating: 0, count: layer.outputs)
                x.withUnsafeBufferPointer { source in
                    layer.weights.withUnsafeBufferPointer { w in
                        layer.bias.withUnsafeBufferPointer { b in
                            out.withUnsafeMutableBufferPointer {
                                NeuralDense.run(source, weights: w, bias: b, into: $0,
                                                activation: layer.relu ? .relu : .none, skipZeros: false)
                            }
                        }
                    }
                }
                x = out
            case .heads:
                x = Self.heads(Self.planar(x, channels: channels, side: side), layer)
                spatial = false
            }
        }
        return x
    }

    /// Channel-major planes (`channels x side x side`) as interleaved pixels (`side x side x channels`).
    static func interleaved(_ planes: [Float], channels: Int, side: Int) -> [Float] {
        transposed(planes, rows: channels, columns: side * side)
    }

    /// Interleaved pixels (`side x side x channels`) as channel-major planes.
    static func planar(_ pixels: [Float], channels: Int, side: Int) -> [Float] {
        transposed(pixels, rows: side * side, columns: channels)
    }

    /// The `rows x columns` row-major matrix `m` transposed.
    static func transposed(_ m: [Float], rows: Int, columns: Int) -> [Float] {
        var out = [Float](repeating: 0, count: m.count)
        for r in 0..<rows {
            for c in 0..<columns { out[c * rows + r] = m[r * columns + c] }
        }
        return out
    }

    /// Heatmap heads: each of the first `heatmaps` channels' soft-argmax (x, y in units of the map's side, cell
    /// centres at (i + 0.5) / side), then the other channels' means, put in `order`.
    private static func heads(_ input: [Float], _ layer: Layer) -> [Float] {
        let side = layer.side, plane = side * side
        var raw: [Float] = []
        raw.reserveCapacity(layer.outputs)
        for c in 0..<layer.heatmaps {
            let values = input[(c * plane)..<((c + 1) * plane)]
            let top = values.max() ?? 0
            var total: Float = 0, x: Float = 0, y: Float = 0
            for (i, v) in values.enumerated() {
                let p = _exp(v - top)
                total += p
                x += p * (Float(i % side) + 0.5)
                y += p * (Float(i / side) + 0.5)
            }
            raw.append(x / total / Float(side))
            raw.append(y / total / Float(side))
        }
        for c in layer.heatmaps..<layer.inputs {
            raw.append(input[(c * plane)..<((c + 1) * plane)].reduce(0, +) / Float(plane))
        }
        return layer.order.map { raw[$0] }
    }
}
