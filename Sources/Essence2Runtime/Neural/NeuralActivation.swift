/// A layer's activation, applied as a clamp to `[lower, upper]`: none, ReLU, ReLU6 and ReLU-N1-to-1 (TensorFlow
/// Lite's fused activations), so that a kernel applies it to its outputs as it stores them. The squashing output
/// functions (`sigmoid`, `tanh`) are not clamps and are applied by the network that reads the outputs.
package struct NeuralActivation: Sendable, Equatable {
    package var lower: Float
    package var upper: Float

    package static let none = NeuralActivation(lower: -.infinity, upper: .infinity)
    package static let relu = NeuralActivation(lower: 0, upper: .infinity)
    package static let relu6 = NeuralActivation(lower: 0, upper: 6)
    package static let reluN1To1 = NeuralActivation(lower: -1, upper: 1)

    package init(lower: Float, upper: Float) {
        self.lower = lower
        self.upper = upper
    }

    /// No clamp at all.
    package var isNone: Bool { lower == -.infinity && upper == .infinity }

    /// `min(max(x, lower), upper)`.
    @inlinable @inline(__always)
    package func apply(_ x: Float) -> Float {
        Swift.min(Swift.max(x, lower), upper)
    }

    /// Lane-wise `apply`.
    @inlinable @inline(__always)
    package func apply(_ x: SIMD8<Float>) -> SIMD8<Float> {
        NeuralSIMD.min(NeuralSIMD.max(x, SIMD8(repeating: lower)), SIMD8(repeating: upper))
    }
}
