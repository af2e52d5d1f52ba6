import Essence2Runtime

/// Appends little-endian values to a growing byte array.
struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func u8(_ value: UInt8) { bytes.append(value) }

    mutating func u16(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    mutating func u32(_ value: UInt32) {
        for i in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt32(i)))) }
    }

    mutating func u64(_ value: UInt64) {
        for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
    }

    mutating func i32(_ value: Int32) { u32(UInt32(bitPattern: value)) }

    mutating func f32(_ value: Float) { u32(value.bitPattern) }

    mutating func append<S: Sequence>(contentsOf other: S) where S.Element == UInt8 {
        bytes.append(contentsOf: other)
    }
}
