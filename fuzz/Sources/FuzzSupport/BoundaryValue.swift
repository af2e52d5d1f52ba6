/// The values parsers get wrong: integer limits of every width, just past them, zero and minus one, numbers
/// too large for any integer type, and floats that are not finite or not representable.
package enum BoundaryValue {
    /// JSON number literals (each valid JSON).
    package static let jsonNumbers: [String] = [
        "0", "-0", "1", "-1", "2", "255", "256", "65535", "65536",
        "2147483647", "2147483648", "-2147483648", "-2147483649", "4294967295", "4294967296",
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        "18446744073709551615", "18446744073709551616", "99999999999999999999999999999999999999",
        "0.5", "-0.5", "1e308", "1e309", "-1e309", "1e-400", "3.4028235e38", "3.5e38", "1.0", "1E2", "0e0",
    ]

    /// 32-bit unsigned header and count fields.
    package static let u32: [UInt32] = [0, 1, 2, 3, 19, 20, 21, 31, 32, 33, 63, 64, 65, 477, 478, 479, 8192, 8193,
                                        32767, 32768, 65535, 65536, 16_777_216, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFE, 0xFFFF_FFFF]

    /// 64-bit unsigned offsets and lengths.
    package static let u64: [UInt64] = [0, 1, 63, 64, 65, 144, 0xFFFF_FFFF, 0x1_0000_0000, UInt64(Int64.max), UInt64(Int64.max) + 1,
                                        UInt64.max - 63, UInt64.max]

    /// Bit patterns of 32-bit floats: zeros, limits, infinities, NaNs, subnormals.
    package static let f32: [UInt32] = [Float(0).bitPattern, (-Float(0)).bitPattern, Float(1).bitPattern, Float(-1).bitPattern,
                                        Float.greatestFiniteMagnitude.bitPattern, (-Float.greatestFiniteMagnitude).bitPattern,
                                        Float.infinity.bitPattern, (-Float.infinity).bitPattern, Float.nan.bitPattern,
                                        Float.signalingNaN.bitPattern, Float.leastNonzeroMagnitude.bitPattern,
                                        Float(16_777_217).bitPattern, Float(1e20).bitPattern, Float(-1e20).bitPattern]

    /// JSON values of other shapes, to put where a number, string, array or object is expected.
    package static let jsonValues: [String] = [
        "null", "true", "false", "\"\"", "\"x\"", "[]", "{}", "[0]", "[0,0]", "[0,0,0,0]", "[1,1,1,1]",
        "[-1,-1,-1,-1]", "[0,0,9223372036854775807,8]", "[1,1,9223372036854775807,8]", "[9223372036854775807,0,1,1]",
        "[-9223372036854775808,0,1,1]", "[[0,0],[1,1],[2,0]]", "[[1e309,0],[0,0],[0,1]]", "{\"a\":{}}",
        String(repeating: "[", count: 64) + String(repeating: "]", count: 64),
        String(repeating: "[", count: 65) + String(repeating: "]", count: 65),
        "\"" + String(repeating: "a", count: 257) + "\"", "\"\\u0000\"", "\"\\ud800\"", "\"0x\"", "\"0x00000000000000000\"",
        "\"0xffffffffffffffff\"", "\"character\"", "\"photoreal\"", "\"open\"", "\"closed\"", "\"absent\"",
    ]
}
