import Essence2Runtime

/// What the first `create` prepares in its staging directory, for later starts to reuse: in
/// `stagingDir/<first 16 hex digits of the avatar's sha256>/`, `avatar.imx` (the checked avatar, so
/// `create(modelPath:)` can start from that directory) and, with a shared engine container, `engine/` (its
/// checked weights, `EngineStaging`): a later start with the same container does not read it again.
enum Expression2Staging {
    static let avatarFile = "avatar.imx"

    /// The weights of `container` (nil: the library's own), staged under `directory` or taken from there.
    static func weights(container: String?, stagedIn directory: String) throws(Expression2LoadError) -> LipSyncWeights {
        guard let container else { return .shipped }
        switch EngineStaging.weights(container: container, staging: directory) {
        case .success(let weights): return weights
        case .failure(let error) where error.kind == .writeFailed: throw .stagingUnavailable(reason: error.description)
        case .failure(let error): throw .engineUnreadable(reason: error.description)
        }
    }

    /// Staged weights in `directory` (or its `engine/`).
    static func staged(in directory: String) throws(Expression2LoadError) -> LipSyncWeights {
        switch EngineStaging.staged(in: directory) {
        case .success(let weights): return weights
        case .failure(let error): throw .engineUnreadable(reason: error.description)
        }
    }

    /// Copies the checked avatar into the staging directory (once per distinct file).
    static func stageAvatar(_ bytes: [UInt8], in directory: String) throws(Expression2LoadError) {
        let path = directory + "/" + avatarFile
        if let existing = try? BinaryFile.read(path: path, maxSize: AvatarFileFormat.maxFileSize), existing == bytes { return }
        guard BinaryFile.makeDirectories(directory), BinaryFile.replaceAtomically(bytes, at: path, mode: 0o644) else {
            throw .stagingUnavailable(reason: "cannot write \(path)")
        }
    }
}
