import Essence2Runtime

/// A prepared RELU, RELU6 or RELU_N1_TO_1: clamps `count` values.
struct TFLiteClampLayer: Sendable {
    var input: Int
    var output: Int
    var count: Int
    var activation: NeuralActivation

    func run(_ arena: UnsafeMutablePointer<Float>) {
        let src = arena + input, dst = arena + output
        for i in 0..<count { dst[i] = activation.apply(src[i]) }
    }
}
