/// A shared engine container (`.engine`, Expression 2's `sharedEngineContainer`): the models every character
/// avatar shares, in the `.imx` container layout (header, section table, sha256 of every section and of the
/// table), with a `manifest` whose format is "essence2-engine" and a `lipsync` section holding the learned
/// lip-sync model's weights. `essence2 engine export` writes one holding the library's own weights.
package enum EngineContainer {
    package static let formatName = "essence2-engine"
    package static let lipSyncSection = "lipsync"
    /// Largest lip-sync section.
    package static let maxWeightsSize = 64 << 20

    /// Reads and checks the container at `path`: its layout and every checksum, its manifest, and that its
    /// weights decode. Returns the weights and their bytes (for staging).
    package static func read(path: String) throws(AvatarFileError) -> (weights: LipSyncWeights, bytes: [UInt8]) {
        let file = try BinaryFile.read(path: path, maxSize: AvatarFileFormat.maxFileSize)
        let layout: AvatarFileLayout
        do {
            layout = try AvatarFileLayout.parse(file)
        } catch where error.kind == .notAvatar {
            throw AvatarFileError(.notAvatar, "not an engine container (wrong magic bytes)")
        }
        for section in layout.sections where SHA256.hash(file, range: section.range) != section.digest {
            throw AvatarFileError(.checksum, "checksum mismatch in section '\(section.name)' of the engine container")
        }
        guard let manifestSection = layout.section(AvatarFileFormat.Section.manifest), manifestSection.encoding == .raw,
              manifestSection.length <= AvatarFileFormat.maxManifestSize else {
            throw AvatarFileError(.corrupt, "the engine container has no readable manifest")
        }
        let manifest: JSONValue
        do {
            manifest = try JSONParser.parse(Array(file[manifestSection.range]))
        } catch {
            throw AvatarFileError(.corrupt, "engine container manifest: invalid JSON (\(error))")
        }
        guard manifest["format"]?.stringValue == formatName else {
            throw AvatarFileError(.notAvatar, "not an engine container (manifest format is not \"\(formatName)\"): "
                + "an avatar (.imx) is opened as the avatar, and the engine is a shared container made by `essence2 engine export`")
        }
        guard manifest["version"]?.intValue == 1 else {
            throw AvatarFileError(.version, "unsupported engine container version (this library reads version 1)")
        }
        guard let section = layout.section(lipSyncSection), section.encoding == .raw, section.length <= maxWeightsSize else {
            throw AvatarFileError(.corrupt, "the engine container has no '\(lipSyncSection)' section")
        }
        let bytes = Array(file[section.range])
        if bytes.starts(with: Array("E2LS".utf8)) {
            throw AvatarFileError(.version, "the engine container holds lip-sync weights in the old E2LS format: "
                + "export it again with this version's `essence2 engine export`")
        }
        do {
            return (try LipSyncWeights(decoding: bytes), bytes)
        } catch {
            throw AvatarFileError(.corrupt, "the engine container's lip-sync weights do not decode (\(error.reason))")
        }
    }

    /// Reads a staged weights file (what `read` checked once and a staging directory kept).
    package static func readStaged(path: String) throws(AvatarFileError) -> LipSyncWeights {
        let bytes = try BinaryFile.read(path: path, maxSize: maxWeightsSize)
        guard let weights = LipSyncWeights(bytes: bytes) else {
            throw AvatarFileError(.corrupt, "\(path): the staged lip-sync weights do not decode (delete the staging directory)")
        }
        return weights
    }
}
