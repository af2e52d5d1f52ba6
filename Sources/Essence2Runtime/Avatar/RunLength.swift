/// The `rle8` section encoding: byte-oriented run-length coding (PackBits style). A control byte `c`
/// below 128 is followed by `c + 1` literal bytes; a control byte of 128 or more is followed by one byte
/// repeated `c - 125` times (3...130). Good for masks, useless (and then not used) for photographs.
package enum RunLength {
    /// Most decoded bytes per stored byte (a 2-byte repeat of 130).
    static let maxExpansion = 65

    static func decodedLength(_ input: ArraySlice<UInt8>) -> Int? {
        var total = 0
        var i = input.startIndex
        while i < input.endIndex {
            let control = Int(input[i])
            i += 1
            let count = control < 128 ? control + 1 : control - 125
            let operand = control < 128 ? count : 1
            guard input.endIndex - i >= operand else { return nil }
            i += operand
            total += count
        }
        return total
    }

    /// Decodes `input`, which must expand to exactly `length` bytes and be consumed entirely;
    /// nil otherwise. Checks that first, so a malformed input allocates nothing.
    static func decode(_ input: ArraySlice<UInt8>, length: Int) -> [UInt8]? {
        guard length >= 0, decodedLength(input) == length else { return nil }
        var out = [UInt8](repeating: 0, count: length)
        var written = 0
        var i = input.startIndex
        while i < input.endIndex {
            let control = Int(input[i])
            i += 1
            if control < 128 {
                let count = control + 1
                guard input.endIndex - i >= count, length - written >= count else { return nil }
                for k in 0..<count { out[written + k] = input[i + k] }
                written += count
                i += count
            } else {
                let count = control - 125
                guard i < input.endIndex, length - written >= count else { return nil }
                let value = input[i]
                i += 1
                for k in 0..<count { out[written + k] = value }
                written += count
            }
        }
        return written == length ? out : nil
    }
}
