import Essence2Runtime

/// One operator of the graph as stored in the file: builtin code, tensor indices and its options table.
struct TFLiteOperator: Sendable {
    static let add = 0, concatenation = 2, conv2D = 3, depthwiseConv2D = 4, dequantize = 6, maxPool2D = 17
    static let relu = 19, reluN1To1 = 20, relu6 = 21, reshape = 22, custom = 32, pad = 34, prelu = 54

    /// Position in the subgraph's operator list.
    var index: Int
    /// Builtin operator code: max(deprecated_builtin_code, builtin_code).
    var code: Int
    /// Custom operator name when `code == custom`.
    var customName: String?
    /// Tensor indices; -1 marks an omitted optional input.
    var inputs: [Int]
    var outputs: [Int]
    /// `BuiltinOptions` union type and table.
    var optionsType: UInt8
    var options: TFLiteFlatTable?

    /// `operator 12 (CONV_2D)`, for error messages.
    var label: String { "operator \(index) (\(Self.name(of: code)))" }

    package static func name(of code: Int) -> String {
        switch code {
        case 0: "ADD"
        case 1: "AVERAGE_POOL_2D"
        case 2: "CONCATENATION"
        case 3: "CONV_2D"
        case 4: "DEPTHWISE_CONV_2D"
        case 6: "DEQUANTIZE"
        case 9: "FULLY_CONNECTED"
        case 14: "LOGISTIC"
        case 17: "MAX_POOL_2D"
        case 18: "MUL"
        case 19: "RELU"
        case 20: "RELU_N1_TO_1"
        case 21: "RELU6"
        case 22: "RESHAPE"
        case 23: "RESIZE_BILINEAR"
        case 25: "SOFTMAX"
        case 28: "TANH"
        case 32: "CUSTOM"
        case 34: "PAD"
        case 54: "PRELU"
        case 67: "TRANSPOSE_CONV"
        case 117: "HARD_SWISH"
        default: "builtin operator \(code)"
        }
    }

    func error(_ message: String) -> TFLiteError {
        TFLiteError("\(label): \(message)")
    }

    /// The options table, checked to be of union type `type`; nil when the operator stores none.
    func options(ofType type: UInt8, _ name: String) throws(TFLiteError) -> TFLiteFlatTable? {
        guard let options else { return nil }
        guard optionsType == type else { throw error("options are of type \(optionsType), expected \(name)") }
        return options
    }
}
