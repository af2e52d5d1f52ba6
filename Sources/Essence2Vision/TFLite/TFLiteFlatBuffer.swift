import Essence2Runtime

/// A bounds-checked little-endian view of a FlatBuffer: every read checks its range and throws instead of trapping.
struct TFLiteFlatBuffer: Sendable {
    let bytes: [UInt8]

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    var count: Int { bytes.count }

    /// Throws unless `[position, position + size)` lies inside the buffer.
    func check(_ position: Int, _ size: Int, _ what: String) throws(TFLiteError) {
        guard position >= 0, size >= 0, position <= bytes.count, size <= bytes.count - position else {
            throw TFLiteError("\(what): offset \(position) (+\(size) bytes) lies outside the \(bytes.count)-byte file")
        }
    }

    func uint8(_ position: Int, _ what: String) throws(TFLiteError) -> UInt8 {
        try check(position, 1, what)
        return bytes[position]
    }

    func uint16(_ position: Int, _ what: String) throws(TFLiteError) -> Int {
        try check(position, 2, what)
        return Int(bytes[position]) | Int(bytes[position + 1]) << 8
    }

    func uint32(_ position: Int, _ what: String) throws(TFLiteError) -> UInt32 {
        try check(position, 4, what)
        return UInt32(bytes[position]) | UInt32(bytes[position + 1]) << 8
            | UInt32(bytes[position + 2]) << 16 | UInt32(bytes[position + 3]) << 24
    }

    func int32(_ position: Int, _ what: String) throws(TFLiteError) -> Int32 {
        Int32(bitPattern: try uint32(position, what))
    }

    func uint64(_ position: Int, _ what: String) throws(TFLiteError) -> UInt64 {
        let low = try uint32(position, what)
        let high = try uint32(position + 4, what)
        return UInt64(low) | UInt64(high) << 32
    }

    /// Follows the unsigned offset stored at `position` (relative to itself).
    func follow(_ position: Int, _ what: String) throws(TFLiteError) -> Int {
        let target = position + Int(try uint32(position, what))
        try check(target, 4, what)
        return target
    }

    /// The table whose start is at `position` (its vtable found through the signed offset stored there).
    func table(at position: Int, _ what: String) throws(TFLiteError) -> TFLiteFlatTable {
        let vtable = position - Int(try int32(position, what))
        let vtableSize = try uint16(vtable, "\(what) vtable")
        guard vtableSize >= 4, vtableSize % 2 == 0 else { throw TFLiteError("\(what): malformed vtable size \(vtableSize)") }
        try check(vtable, vtableSize, "\(what) vtable")
        let inlineSize = try uint16(vtable + 2, "\(what) vtable")
        guard inlineSize >= 4 else { throw TFLiteError("\(what): malformed table size \(inlineSize)") }
        try check(position, inlineSize, what)
        return TFLiteFlatTable(buffer: self, position: position, vtable: vtable, vtableSize: vtableSize,
                               inlineSize: inlineSize, what: what)
    }

    /// The root table, after checking the `TFL3` file identifier.
    func root() throws(TFLiteError) -> TFLiteFlatTable {
        guard bytes.count >= 8 else { throw TFLiteError("model file is too short (\(bytes.count) bytes)") }
        guard bytes[4] == 0x54, bytes[5] == 0x46, bytes[6] == 0x4C, bytes[7] == 0x33 else {
            throw TFLiteError("not a TensorFlow Lite model (file identifier is not TFL3)")
        }
        return try table(at: follow(0, "root offset"), "Model")
    }
}
