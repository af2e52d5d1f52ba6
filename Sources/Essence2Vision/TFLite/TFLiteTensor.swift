import Essence2Runtime

/// A dense float32 tensor in row-major (NHWC) order, as passed to and returned by `TFLiteInterpreter`.
package struct TFLiteTensor: Sendable {
    /// Dimensions, outermost first (e.g. `[1, 128, 128, 3]`).
    package var shape: [Int]
    /// `shape.reduce(1, *)` values, row-major.
    package var values: [Float]

    /// Creates a tensor; `values.count` should equal the product of `shape` (the interpreter checks it).
    package init(shape: [Int], values: [Float]) {
        self.shape = shape
        self.values = values
    }
}
