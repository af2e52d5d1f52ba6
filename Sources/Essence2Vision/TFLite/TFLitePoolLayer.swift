import Essence2Runtime

/// A prepared MAX_POOL_2D (padding never contributes), SIMD over channels.
struct TFLitePoolLayer: Sendable {
    var input: Int
    var output: Int
    var batch: Int
    var channels: Int
    var rows: NeuralWindow
    var columns: NeuralWindow
    var activation: NeuralActivation

    func run(_ arena: UnsafeMutablePointer<Float>) {
        let c = channels, blocks = (c + 7) / 8
        let width = columns.input
        for n in 0..<batch {
            let source = arena + input + n * rows.input * width * c
            var dst = arena + output + n * rows.output * columns.output * c
            NeuralWindow.forEachOutput(rows: rows, columns: columns) { y0, x0, rowTaps, colTaps in
                for block in 0..<blocks {
                    var acc = SIMD8<Float>(repeating: -.infinity)
                    for ky in rowTaps {
                        let row = source + (y0 + ky * rows.dilation) * width * c + block * 8
                        for kx in colTaps {
                            acc = NeuralSIMD.max(acc, NeuralSIMD.load(row + (x0 + kx * columns.dilation) * c))
                        }
                    }
                    NeuralSIMD.store(activation.apply(acc), dst + block * 8, lanes: Swift.min(8, c - block * 8))
                }
                dst += c
            }
        }
    }
}
