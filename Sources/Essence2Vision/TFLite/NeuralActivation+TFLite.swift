import Essence2Runtime

extension NeuralActivation {
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
}
