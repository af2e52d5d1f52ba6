/// Standard base64 (RFC 4648, with `=` padding) decoding, for the weights shipped as a string literal.
enum Base64 {
    /// The bytes of `text`, or nil when it is not well-formed base64 (whitespace is not allowed).
    static func decode(_ text: String) -> [UInt8]? {
        var utf8 = Array(text.utf8)
        guard utf8.count % 4 == 0 else { return nil }
        var padding = 0
        while padding < 2, let last = utf8.last, last == UInt8(ascii: "=") {
            utf8.removeLast()
            padding += 1
        }
        guard padding == 0 || !utf8.isEmpty else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for c in utf8 {
            guard let v = value(c) else { return nil }
            accumulator = accumulator << 6 | UInt32(v)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // Leftover bits must be zero padding.
        guard accumulator & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return out
    }

    private static func value(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): c - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): c - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
