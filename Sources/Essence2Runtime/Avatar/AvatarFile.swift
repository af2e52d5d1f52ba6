/// Reads and writes `.imx` avatar files (format: docs/imx-format.md). Reading checks everything: the header,
/// the section table, every section's SHA-256, every size against the limits (before allocating), and the
/// content itself. Any failure is an `AvatarFileError`, never a trap.
package enum AvatarFile {
    /// Reads and fully validates the avatar file at `path`.
    package static func read(path: String) throws(AvatarFileError) -> Avatar {
        try readKeepingBytes(path: path).avatar
    }

    /// Reads and fully validates the avatar file at `path`, and hands back the file's bytes too (a metered
    /// session names the avatar by their SHA-256, without reading the file again).
    package static func readKeepingBytes(path: String) throws(AvatarFileError) -> (avatar: Avatar, bytes: [UInt8]) {
        let bytes = try BinaryFile.read(path: path, maxSize: AvatarFileFormat.maxFileSize)
        return (try read(bytes: bytes), bytes)
    }

    /// Decodes and fully validates an avatar file held in memory.
    package static func read(bytes: [UInt8]) throws(AvatarFileError) -> Avatar {
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
        if manifest.kind == AvatarManifest.characterKind {
            let rig = try CharacterRig.decode(
                decodedSection(S.rig, of: layout, in: bytes, maxLength: CharacterRig.maxSectionSize))
            let mask = try decodedSection(S.headMask, of: layout, in: bytes, exactLength: pixelCount)
            let avatar = Avatar(name: manifest.name, width: layout.width, height: layout.height, pixels: pixels,
                                character: rig, headBox: manifest.headBox, headMask: mask, seed: manifest.seed)
            if let problem = avatar.validationProblem() {
                throw AvatarFileError(.corrupt, "invalid content: \(problem)")
            }
            return avatar
        }
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
