import Glibc

extension NeuralActivation {
    /// The logistic function `1 / (1 + e^-x)`, for outputs in 0 ... 1.
    @inlinable @inline(__always)
    package static func sigmoid(_ x: Float) -> Float { 1 / (1 + expf(-x)) }

    /// The hyperbolic tangent, for outputs in -1 ... 1.
    @inlinable @inline(__always)
    package static func tanh(_ x: Float) -> Float { tanhf(x) }
}
