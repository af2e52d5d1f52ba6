import Essence2Runtime

/// A fused activation function, applied as a clamp to `[lower, upper]`.
struct TFLiteActivation: Sendable {
    var lower: Float
    var upper: Float

    static let none = TFLiteActivation(lower: -.infinity, upper: .infinity)
    static let relu = TFLiteActivation(lower: 0, upper: .infinity)
    static let relu6 = TFLiteActivation(lower: 0, upper: 6)
    static let reluN1To1 = TFLiteActivation(lower: -1, upper: 1)

    /// The activation for a TFLite `ActivationFunctionType` code.
    init(code: Int8, for op: TFLiteOperator) throws(TFLiteError) {
        switch code {
        case 0: self = .none
        case 1: self = .relu
        case 2: self = .reluN1To1
        case 3: self = .relu6
        case 4: throw op.error("fused activation TANH is not supported")
        case 5: throw op.error("fused activation SIGN_BIT is not supported")
        default: throw op.error("unknown fused activation \(code)")
        }
    }

    init(lower: Float, upper: Float) {
        self.lower = lower
        self.upper = upper
    }

    var isNone: Bool { lower == -.infinity && upper == .infinity }

    @inline(__always)
    func apply(_ x: Float) -> Float {
        Swift.min(Swift.max(x, lower), upper)
    }

    @inline(__always)
    func apply(_ x: SIMD8<Float>) -> SIMD8<Float> {
        TFLiteSIMD.min(TFLiteSIMD.max(x, SIMD8(repeating: lower)), SIMD8(repeating: upper))
    }
}
