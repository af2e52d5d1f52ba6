/// Reads a fuzz input front to back as a recipe: small integers, choices and byte runs. Past the end every read
/// gives zero (or an empty run), so every input, however short, is a complete recipe.
package struct FuzzInput {
    private let bytes: [UInt8]
    private var position = 0

    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    package var isAtEnd: Bool { position >= bytes.count }

    package var remaining: Int { Swift.max(0, bytes.count - position) }

    package mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    package mutating func u16() -> UInt16 {
        UInt16(byte()) | UInt16(byte()) << 8
    }

    package mutating func u32() -> UInt32 {
        UInt32(u16()) | UInt32(u16()) << 16
    }

    package mutating func u64() -> UInt64 {
        UInt64(u32()) | UInt64(u32()) << 32
    }

    /// A number in 0..<bound (0 when `bound` is at most 1).
    package mutating func below(_ bound: Int) -> Int {
        guard bound > 1 else { return 0 }
        return bound <= 256 ? Int(byte()) % bound : Int(u32() % UInt32(truncatingIfNeeded: bound))
    }

    /// One of `choices`.
    package mutating func pick<T>(_ choices: [T]) -> T {
        choices[below(choices.count)]
    }

    /// Up to `limit` bytes, the count read first.
    package mutating func run(upTo limit: Int) -> [UInt8] {
        let count = Swift.min(below(limit + 1), remaining)
        defer { position += count }
        return Array(bytes[position..<position + count])
    }

    /// The rest of the input.
    package mutating func rest() -> [UInt8] {
        defer { position = bytes.count }
        return position < bytes.count ? Array(bytes[position...]) : []
    }
}
