import Essence2Runtime

/// One tensor of a parsed model: its declared shape and type, and its constant data when it has any.
struct TFLiteTensorInfo: Sendable {
    /// Element types the interpreter understands (TFLite `TensorType` codes).
    static let float32: Int8 = 0
    static let float16: Int8 = 1
    static let int32: Int8 = 2

    /// Largest element count accepted for any one tensor.
    static let maxElements = 1 << 26

    package var name: String
    var shape: [Int]
    var type: Int8
    var elementCount: Int
    /// Constant values of a FLOAT32 tensor, or of a FLOAT16 tensor converted to float32.
    var floats: [Float]?
    /// Constant values of an INT32 tensor.
    var ints: [Int32]?

    var isConstant: Bool { floats != nil || ints != nil }

    /// `'name' [1, 2, 3]`, for error messages.
    var label: String { "'\(name)' \(shape)" }

    /// Element count of `shape`, or nil when a dimension is negative or the count exceeds `maxElements`.
    static func elementCount(_ shape: [Int]) -> Int? {
        var count = 1
        for dim in shape {
            guard dim >= 0 else { return nil }
            let (product, overflow) = count.multipliedReportingOverflow(by: dim)
            guard !overflow, product <= maxElements else { return nil }
            count = product
        }
        return count
    }

    /// Converts IEEE half-precision bits to a Float exactly (subnormals, infinities and NaN included).
    static func floatFromHalf(_ bits: UInt16) -> Float {
        let sign = UInt32(bits & 0x8000) << 16
        let exponent = Int(bits >> 10) & 0x1F
        let mantissa = UInt32(bits & 0x03FF)
        if exponent == 0x1F { return Float(bitPattern: sign | 0x7F80_0000 | mantissa << 13) }
        if exponent == 0 {
            let magnitude = Float(mantissa) * (1.0 / 16_777_216.0)  // mantissa * 2^-24
            return sign != 0 ? -magnitude : magnitude
        }
        return Float(bitPattern: sign | UInt32(exponent + 112) << 23 | mantissa << 13)
    }
}
