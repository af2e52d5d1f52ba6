/// One named array of a weights file (`NeuralWeights`): its shape and its values, floats or integers.
package struct NeuralTensor: Sendable, Equatable {
    /// How the values are stored in the file.
    package enum Element: UInt32, Sendable {
        /// IEEE 754 single precision, little-endian.
        case float32 = 1
        /// IEEE 754 half precision, little-endian (read exactly into Float).
        case float16 = 2
        /// Two's complement 32-bit integer, little-endian.
        case int32 = 3

        /// Bytes per value.
        package var size: Int { self == .float16 ? 2 : 4 }
    }

    package let element: Element
    /// Extents, outermost first; empty for a scalar (one value).
    package let shape: [Int]
    /// The values of a float tensor (empty for an integer one).
    package let floats: [Float]
    /// The values of an integer tensor (empty for a float one).
    package let ints: [Int32]

    /// A float tensor (`element` float32 or float16; float16 values must be exact halves to round-trip).
    package init(shape: [Int], floats: [Float], element: Element = .float32) {
        precondition(element != .int32 && floats.count == shape.reduce(1, *), "tensor: values do not fit")
        self.element = element
        self.shape = shape
        self.floats = floats
        ints = []
    }

    /// An integer tensor.
    package init(shape: [Int], ints: [Int32]) {
        precondition(ints.count == shape.reduce(1, *), "tensor: values do not fit")
        element = .int32
        self.shape = shape
        floats = []
        self.ints = ints
    }

    /// Number of values: the product of the extents.
    package var count: Int { shape.reduce(1, *) }
}
