/// The parsed header and section table of an `.imx` file, checked for structure but not yet for the
/// section checksums or the content.
struct AvatarFileLayout: Sendable {
    var version: UInt32
    var fileSize: Int
    package var width: Int
    package var height: Int
    var tableDigest: [UInt8]
    var sections: [AvatarFileSection]

    func section(_ name: String) -> AvatarFileSection? {
        sections.first { $0.name == name }
    }

    /// Reads and checks the header and section table of `bytes`, in this order: length and magic, version,
    /// section count and declared file size, the table sha256, then width, height and every table entry.
    /// Nothing is allocated from a size read out of the file.
    package static func parse(_ bytes: [UInt8]) throws(AvatarFileError) -> AvatarFileLayout {
        typealias F = AvatarFileFormat
        let magic = F.magic
        guard !bytes.isEmpty else { throw AvatarFileError(.truncated, "the file is empty") }
        let prefix = min(bytes.count, magic.count)
        guard bytes[0..<prefix].elementsEqual(magic[0..<prefix]) else {
            throw AvatarFileError(.notAvatar, "not an .imx avatar file (wrong magic bytes)")
        }
        guard bytes.count >= F.headerSize else {
            throw AvatarFileError(.truncated, "truncated header: the file has \(bytes.count) bytes, the header alone \(F.headerSize)")
        }
        guard bytes.count <= F.maxFileSize else {
            throw AvatarFileError(.tooLarge, "the file has \(bytes.count) bytes, more than the limit of \(F.maxFileSize)")
        }
        var reader = ByteReader(bytes, range: magic.count..<F.headerSize)
        let version = reader.u32() ?? 0
        let sectionCount = reader.u32() ?? 0
        let declaredSize = reader.u64() ?? 0
        let width = reader.u32() ?? 0
        let height = reader.u32() ?? 0
        let tableDigest = Array(reader.take(SHA256.digestSize) ?? [])

        guard version == F.version else {
            if version < F.version {
                throw AvatarFileError(.version, "the .imx format version \(version) is older than this library reads "
                                      + "(version \(F.version)): build the avatar again (essence2 avatar build) or get a new copy",
                                      outdated: true)
            }
            throw AvatarFileError(.version, "unsupported .imx version \(version) (this library reads version \(F.version)): "
                                  + "use a newer essence2")
        }
        guard sectionCount >= 1, sectionCount <= UInt32(F.maxSections) else {
            throw AvatarFileError(.corrupt, "invalid section count \(sectionCount) (1...\(F.maxSections))")
        }
        guard declaredSize <= UInt64(F.maxFileSize) else {
            throw AvatarFileError(.tooLarge, "the header declares a file of \(declaredSize) bytes, more than the limit of \(F.maxFileSize)")
        }
        let fileSize = Int(declaredSize)
        guard fileSize <= bytes.count else {
            throw AvatarFileError(.truncated, "truncated file: \(bytes.count) bytes of the \(fileSize) the header declares")
        }
        guard fileSize == bytes.count else {
            throw AvatarFileError(.corrupt, "\(bytes.count - fileSize) unexpected bytes after the declared end of the file (\(fileSize) bytes)")
        }
        let tableEnd = F.headerSize + Int(sectionCount) * F.sectionEntrySize
        guard tableEnd <= fileSize else {
            throw AvatarFileError(.corrupt, "the section table (\(sectionCount) entries) extends past the end of the file")
        }
        guard tableDigest == digestOfHeaderAndTable(bytes, tableEnd: tableEnd) else {
            throw AvatarFileError(.checksum, "checksum mismatch in the header and section table")
        }
        guard width >= 1, height >= 1 else {
            throw AvatarFileError(.corrupt, "invalid portrait size \(width)x\(height)")
        }
        guard width <= UInt32(F.maxSide), height <= UInt32(F.maxSide), Int(width) * Int(height) <= F.maxPixels else {
            throw AvatarFileError(.tooLarge, "portrait size \(width)x\(height) exceeds the limit (sides up to \(F.maxSide), at most \(F.maxPixels) pixels)")
        }

        var sections: [AvatarFileSection] = []
        var expectedOffset = tableEnd
        for index in 0..<Int(sectionCount) {
            let entryStart = F.headerSize + index * F.sectionEntrySize
            var entry = ByteReader(bytes, range: entryStart..<(entryStart + F.sectionEntrySize))
            let section = try parseEntry(&entry, index: index, fileSize: fileSize)
            guard !sections.contains(where: { $0.name == section.name }) else {
                throw AvatarFileError(.corrupt, "section '\(section.name)' appears twice")
            }
            guard section.offset == expectedOffset else {
                throw AvatarFileError(.corrupt, "section '\(section.name)' starts at byte \(section.offset), not right after the previous one (\(expectedOffset))")
            }
            expectedOffset = section.offset + section.storedLength
            sections.append(section)
        }
        guard expectedOffset == fileSize else {
            throw AvatarFileError(.corrupt, "\(fileSize - expectedOffset) bytes after the last section belong to no section")
        }
        return AvatarFileLayout(version: version, fileSize: fileSize, width: Int(width), height: Int(height),
                                tableDigest: tableDigest, sections: sections)
    }

    /// SHA-256 over header bytes 0..<32 followed by the section table (bytes 64..<tableEnd).
    static func digestOfHeaderAndTable(_ bytes: [UInt8], tableEnd: Int) -> [UInt8] {
        let covered = Array(bytes[0..<AvatarFileFormat.headerDigestedBytes])
            + bytes[AvatarFileFormat.headerSize..<tableEnd]
        return SHA256.hash(covered)
    }

    private static func parseEntry(_ entry: inout ByteReader, index: Int,
                                   fileSize: Int) throws(AvatarFileError) -> AvatarFileSection {
        typealias F = AvatarFileFormat
        let nameBytes = Array(entry.take(F.maxSectionNameLength) ?? [])
        let nameLength = nameBytes.firstIndex(of: 0) ?? nameBytes.count
        let validName = nameLength > 0
            && nameBytes[0..<nameLength].allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            }
            && nameBytes[nameLength...].allSatisfy { $0 == 0 }
        guard validName else { throw AvatarFileError(.corrupt, "section \(index) has an invalid name") }
        let name = String(decoding: nameBytes[0..<nameLength], as: UTF8.self)
        let encodingCode = entry.u32() ?? UInt32.max
        let reserved = entry.u32() ?? 1
        let offset = entry.u64() ?? UInt64.max
        let storedLength = entry.u64() ?? UInt64.max
        let length = entry.u64() ?? UInt64.max
        let digest = Array(entry.take(SHA256.digestSize) ?? [])
        guard let encoding = F.Encoding(rawValue: encodingCode) else {
            throw AvatarFileError(.corrupt, "section '\(name)' has unknown encoding \(encodingCode)")
        }
        guard reserved == 0 else { throw AvatarFileError(.corrupt, "section '\(name)' has a non-zero reserved field") }
        guard offset <= UInt64(fileSize), storedLength <= UInt64(fileSize) - offset else {
            throw AvatarFileError(.corrupt, "section '\(name)' (offset \(offset), \(storedLength) bytes) extends past the end of the file (\(fileSize) bytes)")
        }
        guard length <= UInt64(F.maxFileSize) else {
            throw AvatarFileError(.tooLarge, "section '\(name)' declares \(length) decoded bytes, more than the limit of \(F.maxFileSize)")
        }
        guard encoding != .raw || length == storedLength else {
            throw AvatarFileError(.corrupt, "raw section '\(name)' declares \(length) bytes but stores \(storedLength)")
        }
        guard encoding != .rle8 || length <= storedLength * UInt64(RunLength.maxExpansion) else {
            throw AvatarFileError(.corrupt, "section '\(name)' declares \(length) decoded bytes, more than \(storedLength) rle8 bytes can hold")
        }
        return AvatarFileSection(name: name, encoding: encoding, offset: Int(offset), storedLength: Int(storedLength),
                                 length: Int(length), digest: digest)
    }
}
