import Essence2Runtime

/// Why a TensorFlow Lite model could not be loaded or run: a message that says what was wrong and where
/// (which table, tensor or operator).
package struct TFLiteError: Error, CustomStringConvertible {
    /// Human-readable explanation, e.g. `operator 12 (CONV_2D): filter 'w' must be constant`.
    package var description: String

    /// Creates an error with the given message.
    package init(_ description: String) {
        self.description = description
    }
}
