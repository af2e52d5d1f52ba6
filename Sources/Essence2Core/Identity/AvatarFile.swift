/// Reads and writes `.imx` avatar files (format: docs/imx-format.md). Reading checks everything: the header,
/// the section table, every section's SHA-256, every size against the limits (before allocating), and the
/// content itself. Any failure is an `AvatarFileError`, never a trap.
public enum AvatarFile {
    /// Reads and fully validates the avatar file at `path`.
    public static func read(path: String) throws(AvatarFileError) -> Avatar {
        let bytes = try BinaryFile.read(path: path, maxSize: AvatarFileFormat.maxFileSize)
        return try read(bytes: bytes)
    }

    /// Decodes and fully validates an avatar file held in memory.
    public static func read(bytes: [UInt8]) throws(AvatarFileError) -> Avatar {
        let layout = try AvatarFileLayout.parse(bytes)
        for section in layout.sections where SHA256.hash(bytes, range: section.range) != section.digest {
            throw AvatarFileError(.checksum, "checksum mismatch in section '\(section.name)'")
        }
        typealias S = AvatarFileFormat.Section
        let pixelCount = layout.width * layout.height
        let manifestBytes = try decodedSection(S.manifest, of: layout, in: bytes, maxLength: AvatarFileFormat.maxManifestSize)
        let manifest = try AvatarManifest.decode(manifestBytes)
        guard manifest.width == layout.width, manifest.height == layout.height else {
            throw AvatarFileError(.corrupt, "manifest size \(manifest.width)x\(manifest.height) differs from the header's \(layout.width)x\(layout.height)")
        }
        let pixels = try decodedSection(S.image, of: layout, in: bytes, exactLength: pixelCount * 3)
        let landmarks = try FaceLandmarks.decodeSection(
            decodedSection(S.landmarks, of: layout, in: bytes, maxLength: AvatarFileFormat.maxLandmarksSize)).get()
        let meshLimit = 8 + 12 * 65536 + 6 * AvatarFileFormat.maxTriangles
        let mesh = try FaceMesh.decodeSection(decodedSection(S.mesh, of: layout, in: bytes, maxLength: meshLimit)).get()
        var headMask: [UInt8] = []
        if let maskSection = layout.section(S.headMask), maskSection.length > 0 {
            headMask = try decodedSection(S.headMask, of: layout, in: bytes, exactLength: pixelCount)
        }
        let avatar = Avatar(name: manifest.name, width: layout.width, height: layout.height, pixels: pixels,
                            landmarks: landmarks, mesh: mesh, headBox: manifest.headBox, headMask: headMask,
                            seed: manifest.seed)
        if let problem = avatar.validationProblem() {
            throw AvatarFileError(.corrupt, "invalid content: \(problem)")
        }
        return avatar
    }

    /// The bytes of a `.imx` file holding `avatar`, with `info` (provenance such as "source" and "licence")
    /// in the manifest. The avatar is written as it is; `write` checks it first.
    public static func encode(_ avatar: Avatar, info: [String: String] = [:]) -> [UInt8] {
        typealias F = AvatarFileFormat
        let manifest = AvatarManifest(name: avatar.name, width: avatar.width, height: avatar.height, seed: avatar.seed,
                                      headBox: avatar.headBox, info: info)
        var contents: [(String, [UInt8])] = [
            (F.Section.manifest, manifest.encoded()),
            (F.Section.image, avatar.pixels),
            (F.Section.landmarks, avatar.landmarks.encodedSection()),
            (F.Section.mesh, avatar.mesh.encodedSection()),
        ]
        if !avatar.headMask.isEmpty { contents.append((F.Section.headMask, avatar.headMask)) }

        var stored: [(name: String, encoding: F.Encoding, data: [UInt8], length: Int)] = []
        for (name, data) in contents {
            let packed = RunLength.encode(data)
            if packed.count < data.count - data.count / 8 {
                stored.append((name, .rle8, packed, data.count))
            } else {
                stored.append((name, .raw, data, data.count))
            }
        }
        let tableEnd = F.headerSize + stored.count * F.sectionEntrySize
        let fileSize = tableEnd + stored.reduce(0) { $0 + $1.data.count }

        var header = ByteWriter()
        header.append(contentsOf: F.magic)
        header.u32(F.version)
        header.u32(UInt32(stored.count))
        header.u64(UInt64(fileSize))
        header.u32(UInt32(truncatingIfNeeded: avatar.width))
        header.u32(UInt32(truncatingIfNeeded: avatar.height))

        var table = ByteWriter()
        var offset = tableEnd
        for section in stored {
            var name = Array(section.name.utf8.prefix(F.maxSectionNameLength))
            name += [UInt8](repeating: 0, count: F.maxSectionNameLength - name.count)
            table.append(contentsOf: name)
            table.u32(section.encoding.rawValue)
            table.u32(0)
            table.u64(UInt64(offset))
            table.u64(UInt64(section.data.count))
            table.u64(UInt64(section.length))
            table.append(contentsOf: SHA256.hash(section.data))
            offset += section.data.count
        }
        let tableDigest = SHA256.hash(header.bytes + table.bytes)

        var file = header.bytes
        file.reserveCapacity(fileSize)
        file += tableDigest
        file += table.bytes
        for section in stored { file += section.data }
        return file
    }

    /// Checks `avatar` and writes it to `path` (atomically, through a temporary file and a rename).
    public static func write(_ avatar: Avatar, info: [String: String] = [:], to path: String) throws(AvatarFileError) {
        if let problem = avatar.validationProblem() {
            throw AvatarFileError(.invalidInput, "cannot write avatar: \(problem)")
        }
        try BinaryFile.write(encode(avatar, info: info), to: path)
    }

    /// The decoded bytes of a required section; its declared decoded length must be `exactLength` (when
    /// given) or at most `maxLength`, checked before decoding.
    private static func decodedSection(_ name: String, of layout: AvatarFileLayout, in bytes: [UInt8],
                                       exactLength: Int? = nil, maxLength: Int? = nil) throws(AvatarFileError) -> [UInt8] {
        guard let section = layout.section(name) else { throw AvatarFileError(.corrupt, "the file has no '\(name)' section") }
        if let exactLength, section.length != exactLength {
            throw AvatarFileError(.corrupt, "section '\(name)' has \(section.length) bytes; expected \(exactLength)")
        }
        if let maxLength, section.length > maxLength {
            throw AvatarFileError(.tooLarge, "section '\(name)' has \(section.length) bytes, more than the limit of \(maxLength)")
        }
        switch section.encoding {
        case .raw:
            return Array(bytes[section.range])
        case .rle8:
            guard let decoded = RunLength.decode(bytes[section.range], length: section.length) else {
                throw AvatarFileError(.corrupt, "section '\(name)' does not decode to its declared \(section.length) bytes")
            }
            return decoded
        }
    }
}
