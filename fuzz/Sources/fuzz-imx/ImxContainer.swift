import Essence2Runtime

/// An `.imx` file taken apart (docs/imx-format.md): the header's fields and each section's table entry and
/// decoded contents. `encoded()` puts it back together, stores each section in its encoding and recomputes
/// every SHA-256 (unless told not to), so a mutant reaches the checks behind the checksums.
struct ImxContainer {
    struct Section {
        /// The name field's 16 bytes (NUL-padded).
        var name: [UInt8]
        var encoding: UInt32 { didSet { stored = nil } }
        var reserved: UInt32 = 0
        /// The decoded contents; stored as `encoding` says (rle8 when 1, raw otherwise).
        var contents: [UInt8] { didSet { stored = nil } }
        /// The stored bytes and their SHA-256, while `contents` and `encoding` are as they were when made (a
        /// seed's sections carry theirs, so a mutant re-encodes and re-hashes only the sections it changed:
        /// encoding the full-size image every input took half the harness's time).
        private var stored: (bytes: [UInt8], digest: [UInt8])?
        /// Added to the table's offset, stored length and decoded length (0: the true values).
        var offsetDelta: Int64 = 0
        var storedLengthDelta: Int64 = 0
        var lengthDelta: Int64 = 0
        /// Whether the table carries the stored bytes' true SHA-256.
        var sealed = true

        var nameText: String { String(decoding: name.prefix { $0 != 0 }, as: UTF8.self) }

        init(name: String, encoding: UInt32, contents: [UInt8]) {
            self.name = Self.nameField(name)
            self.encoding = encoding
            self.contents = contents
        }

        /// The bytes as stored and their SHA-256 (from the cache when the section is unchanged).
        func storedForm() -> (bytes: [UInt8], digest: [UInt8]) {
            if let stored { return stored }
            let bytes = encoding == 1 ? ImxContainer.rle8Encode(contents) : contents
            return (bytes, SHA256.hash(bytes))
        }

        /// Fills the cache (a seed's sections, before the mutants copy them).
        mutating func cacheStoredForm() {
            stored = storedForm()
        }

        static func nameField(_ text: String) -> [UInt8] {
            let bytes = Array(text.utf8.prefix(AvatarFileFormat.maxSectionNameLength))
            return bytes + [UInt8](repeating: 0, count: AvatarFileFormat.maxSectionNameLength - bytes.count)
        }
    }

    var magic = AvatarFileFormat.magic
    var version = AvatarFileFormat.version
    var width: UInt32
    var height: UInt32
    var sections: [Section]
    /// Replace the true section count and file size when set.
    var sectionCount: UInt32?
    var fileSize: UInt64?
    /// Whether the header carries the true table digest.
    var tableSealed = true

    /// Takes apart a valid file (a seed: the harness's own, already read by the library).
    init(valid bytes: [UInt8]) {
        func u32(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * $1) } }
        func u64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * $1) } }
        width = u32(24)
        height = u32(28)
        sections = (0..<Int(u32(12))).map { i in
            let entry = AvatarFileFormat.headerSize + i * AvatarFileFormat.sectionEntrySize
            let name = Array(bytes[entry..<entry + 16])
            let encoding = u32(entry + 16)
            let offset = Int(u64(entry + 24)), stored = Int(u64(entry + 32)), length = Int(u64(entry + 40))
            let data = Array(bytes[offset..<offset + stored])
            let contents = encoding == 1 ? ImxContainer.rle8Decode(data, length: length) : data
            var section = Section(name: "", encoding: encoding, contents: contents)
            section.name = name
            section.cacheStoredForm()
            return section
        }
    }

    func section(named name: String) -> Int? {
        sections.firstIndex { $0.nameText == name }
    }

    /// The file's bytes.
    func encoded() -> [UInt8] {
        typealias F = AvatarFileFormat
        let forms = sections.map { $0.storedForm() }
        let stored = forms.map(\.bytes)
        let tableEnd = F.headerSize + sections.count * F.sectionEntrySize
        let total = tableEnd + stored.reduce(0) { $0 + $1.count }
        var header: [UInt8] = magic
        append32(version, to: &header)
        append32(sectionCount ?? UInt32(sections.count), to: &header)
        append64(fileSize ?? UInt64(total), to: &header)
        append32(width, to: &header)
        append32(height, to: &header)
        var table: [UInt8] = []
        var offset = tableEnd
        for (section, form) in zip(sections, forms) {
            let data = form.bytes
            table += section.name
            append32(section.encoding, to: &table)
            append32(section.reserved, to: &table)
            append64(UInt64(bitPattern: Int64(offset) &+ section.offsetDelta), to: &table)
            append64(UInt64(bitPattern: Int64(data.count) &+ section.storedLengthDelta), to: &table)
            append64(UInt64(bitPattern: Int64(section.contents.count) &+ section.lengthDelta), to: &table)
            var digest = form.digest
            if !section.sealed { digest[0] ^= 1 }
            table += digest
            offset += data.count
        }
        var tableDigest = SHA256.hash(header + table)
        if !tableSealed { tableDigest[31] ^= 0x80 }
        var file = header + tableDigest + table
        for data in stored { file += data }
        return file
    }

    private func append32(_ value: UInt32, to bytes: inout [UInt8]) {
        for i in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * i))) }
    }

    private func append64(_ value: UInt64, to bytes: inout [UInt8]) {
        for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * i))) }
    }

    /// rle8 (docs/imx-format.md): runs of 3 ... 130 equal bytes as a repeat, everything else as literals.
    static func rle8Encode(_ input: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var literals: [UInt8] = []
        func flush() {
            var start = 0
            while start < literals.count {
                let count = min(128, literals.count - start)
                out.append(UInt8(count - 1))
                out += literals[start..<start + count]
                start += count
            }
            literals.removeAll()
        }
        var i = 0
        while i < input.count {
            var run = 1
            while i + run < input.count, run < 130, input[i + run] == input[i] { run += 1 }
            if run >= 3 {
                flush()
                out.append(UInt8(run + 125))
                out.append(input[i])
                i += run
            } else {
                literals.append(input[i])
                i += 1
            }
        }
        flush()
        return out
    }

    /// Decodes a valid seed's rle8 section.
    static func rle8Decode(_ input: [UInt8], length: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(length)
        var i = 0
        while i < input.count {
            let control = Int(input[i])
            if control < 128 {
                out += input[i + 1...i + 1 + control]
                i += control + 2
            } else {
                out += [UInt8](repeating: input[i + 1], count: control - 125)
                i += 2
            }
        }
        return out
    }
}
