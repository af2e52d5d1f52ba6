import Essence2Runtime

extension AvatarFile {
    /// The bytes of a `.imx` file holding `avatar`, with `info` (provenance such as "source" and "licence")
    /// in the manifest. The avatar is written as it is; `write` checks it first.
    package static func encode(_ avatar: Avatar, info: [String: String] = [:]) -> [UInt8] {
        typealias F = AvatarFileFormat
        let manifest = AvatarManifest(name: avatar.name, width: avatar.width, height: avatar.height, seed: avatar.seed,
                                      headBox: avatar.headBox, info: info)
        var contents: [(String, [UInt8])]
        if let rig = avatar.character {
            var characterManifest = manifest
            characterManifest.kind = AvatarManifest.characterKind
            contents = [
                (F.Section.manifest, characterManifest.encoded()),
                (F.Section.image, avatar.pixels),
                (F.Section.rig, rig.encoded()),
            ]
        } else {
            contents = [
                (F.Section.manifest, manifest.encoded()),
                (F.Section.image, avatar.pixels),
                (F.Section.landmarks, avatar.landmarks.encodedSection()),
                (F.Section.mesh, avatar.mesh.encodedSection()),
            ]
        }
        if !avatar.headMask.isEmpty { contents.append((F.Section.headMask, avatar.headMask)) }
        return encodeContainer(contents, width: avatar.width, height: avatar.height)
    }

    /// The bytes of a container in the `.imx` layout holding `contents` (name, bytes) in order, each stored
    /// raw or rle8 (whichever is smaller), with its sha256, and the table's.
    package static func encodeContainer(_ contents: [(String, [UInt8])], width: Int, height: Int) -> [UInt8] {
        typealias F = AvatarFileFormat
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
        header.u32(UInt32(truncatingIfNeeded: width))
        header.u32(UInt32(truncatingIfNeeded: height))

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
    package static func write(_ avatar: Avatar, info: [String: String] = [:], to path: String) throws(AvatarFileError) {
        if let problem = avatar.validationProblem() {
            throw AvatarFileError(.invalidInput, "cannot write avatar: \(problem)")
        }
        try BinaryFile.write(encode(avatar, info: info), to: path)
    }
}
