import Essence2Runtime

/// One FlatBuffer table: typed, bounds-checked access to its fields by field index (0 = first field of the schema).
struct TFLiteFlatTable: Sendable {
    let buffer: TFLiteFlatBuffer
    let position: Int
    let vtable: Int
    let vtableSize: Int
    let inlineSize: Int
    /// What the table is (for error messages), e.g. `operator 3`.
    let what: String

    /// Position of field `index` inside the table, or nil when the field is absent.
    func field(_ index: Int, size: Int) throws(TFLiteError) -> Int? {
        let entry = 4 + 2 * index
        guard entry + 2 <= vtableSize else { return nil }
        let offset = try buffer.uint16(vtable + entry, "\(what) vtable")
        guard offset != 0 else { return nil }
        guard offset + size <= inlineSize else { throw TFLiteError("\(what): field \(index) lies outside its table") }
        return position + offset
    }

    func uint8(_ index: Int, default value: UInt8) throws(TFLiteError) -> UInt8 {
        guard let at = try field(index, size: 1) else { return value }
        return try buffer.uint8(at, what)
    }

    func int8(_ index: Int, default value: Int8) throws(TFLiteError) -> Int8 {
        Int8(bitPattern: try uint8(index, default: UInt8(bitPattern: value)))
    }

    func int32(_ index: Int, default value: Int32) throws(TFLiteError) -> Int32 {
        guard let at = try field(index, size: 4) else { return value }
        return try buffer.int32(at, what)
    }

    func uint32(_ index: Int, default value: UInt32) throws(TFLiteError) -> UInt32 {
        guard let at = try field(index, size: 4) else { return value }
        return try buffer.uint32(at, what)
    }

    func uint64(_ index: Int, default value: UInt64) throws(TFLiteError) -> UInt64 {
        guard let at = try field(index, size: 8) else { return value }
        return try buffer.uint64(at, what)
    }

    /// The sub-table stored in field `index`, or nil when absent.
    func table(_ index: Int, _ name: String) throws(TFLiteError) -> TFLiteFlatTable? {
        guard let at = try field(index, size: 4) else { return nil }
        return try buffer.table(at: buffer.follow(at, "\(what).\(name)"), "\(what).\(name)")
    }

    /// Start of the elements and element count of the vector in field `index`, or nil when absent.
    func vector(_ index: Int, elementSize: Int, _ name: String) throws(TFLiteError) -> (start: Int, count: Int)? {
        guard let at = try field(index, size: 4) else { return nil }
        let label = "\(what).\(name)"
        let header = try buffer.follow(at, label)
        let count = Int(try buffer.uint32(header, label))
        let start = header + 4
        guard count <= (buffer.count - start) / elementSize else {
            throw TFLiteError("\(label): vector of \(count) elements runs past the end of the file")
        }
        return (start, count)
    }

    func int32Vector(_ index: Int, _ name: String) throws(TFLiteError) -> [Int32] {
        guard let (start, count) = try vector(index, elementSize: 4, name) else { return [] }
        var out = [Int32]()
        out.reserveCapacity(count)
        for i in 0..<count { out.append(try buffer.int32(start + 4 * i, "\(what).\(name)")) }
        return out
    }

    func tableVector(_ index: Int, _ name: String) throws(TFLiteError) -> [TFLiteFlatTable] {
        guard let (start, count) = try vector(index, elementSize: 4, name) else { return [] }
        var out = [TFLiteFlatTable]()
        out.reserveCapacity(count)
        for i in 0..<count {
            let label = "\(what).\(name)[\(i)]"
            out.append(try buffer.table(at: buffer.follow(start + 4 * i, label), label))
        }
        return out
    }

    func string(_ index: Int, _ name: String) throws(TFLiteError) -> String? {
        guard let (start, count) = try vector(index, elementSize: 1, name) else { return nil }
        return String(decoding: buffer.bytes[start..<(start + count)], as: UTF8.self)
    }
}
