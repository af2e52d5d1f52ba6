/// Reads little-endian values from a byte array, bounds-checked: every read returns nil past the end.
struct ByteReader {
    let bytes: [UInt8]
    private(set) var position: Int
    let end: Int

    /// A reader over `bytes[range]`; `range` must lie inside `bytes`.
    init(_ bytes: [UInt8], range: Range<Int>? = nil) {
        let range = range ?? 0..<bytes.count
        precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "reader range outside the buffer")
        self.bytes = bytes
        self.position = range.lowerBound
        self.end = range.upperBound
    }

    var remaining: Int { end - position }
    var isAtEnd: Bool { position == end }

    mutating func u8() -> UInt8? {
        guard remaining >= 1 else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func u16() -> UInt16? {
        guard remaining >= 2 else { return nil }
        defer { position += 2 }
        return UInt16(bytes[position]) | UInt16(bytes[position + 1]) << 8
    }

    mutating func u32() -> UInt32? {
        guard remaining >= 4 else { return nil }
        defer { position += 4 }
        var value: UInt32 = 0
        for i in (0..<4).reversed() { value = value << 8 | UInt32(bytes[position + i]) }
        return value
    }

    mutating func u64() -> UInt64? {
        guard remaining >= 8 else { return nil }
        defer { position += 8 }
        var value: UInt64 = 0
        for i in (0..<8).reversed() { value = value << 8 | UInt64(bytes[position + i]) }
        return value
    }

    mutating func i32() -> Int32? {
        u32().map { Int32(bitPattern: $0) }
    }

    mutating func f32() -> Float? {
        u32().map { Float(bitPattern: $0) }
    }

    /// The next `count` bytes, or nil when fewer remain (or `count` is negative).
    mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, remaining >= count else { return nil }
        defer { position += count }
        return bytes[position..<(position + count)]
    }
}
