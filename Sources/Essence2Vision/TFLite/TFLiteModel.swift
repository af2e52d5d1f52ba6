import Essence2Runtime

/// A TensorFlow Lite model parsed from its FlatBuffer bytes, validated operator by operator, with weights
/// dequantized (FLOAT16 to float32) and packed once. Immutable and shareable; run it with `TFLiteInterpreter`.
///
/// Supported operators: DEQUANTIZE (of constants), CONV_2D, DEPTHWISE_CONV_2D, MAX_POOL_2D, ADD, PRELU, RELU,
/// RELU6, RELU_N1_TO_1, PAD, RESHAPE, CONCATENATION, on FLOAT32 activations. Anything else, and any corrupt
/// or inconsistent file, is a `TFLiteError`.
package final class TFLiteModel: Sendable {
    let program: TFLiteProgram

    /// Shapes of the graph's inputs, in order.
    package var inputShapes: [[Int]] { program.inputs.map(\.shape) }
    /// Shapes of the graph's outputs, in the order `TFLiteInterpreter.invoke` returns them.
    package var outputShapes: [[Int]] { program.outputs.map(\.shape) }
    /// Multiply-accumulates (plus element writes) of one run.
    package var operationCount: Int { program.macs }

    /// Parses and validates a `.tflite` file (no checksum is verified here).
    package init(bytes: [UInt8]) throws(TFLiteError) {
        program = try TFLitePlanner.plan(TFLiteGraph(bytes: bytes))
    }
}
