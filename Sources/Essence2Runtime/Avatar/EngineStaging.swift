#if canImport(Glibc)
import Glibc
#endif

/// A shared engine container's checked weights kept in a staging directory, so later starts with the same
/// container skip reading and checking it: `<staging>/engine/lipsync.e2nw` (the weights) and
/// `<staging>/engine/source` (the container's path, size and modification time, and the weights' sha256). The
/// one rule for Expression 2's `stagingDir` (Swift) and `staging_dir` (C).
package enum EngineStaging {
    package static let directory = "engine"
    package static let weightsFile = "lipsync.e2nw"
    /// What versions before 1.4.0 staged (the E2LS format), recognised to say so.
    static let oldWeightsFile = "lipsync.e2ls"
    package static let sourceFile = "source"

    /// The weights of `container`: staged ones when `staging` holds them for this very file (same path, size
    /// and modification time), else read from the container, checked, and staged (when `staging` is given).
    package static func weights(container: String, staging: String?) -> Result<LipSyncWeights, AvatarFileError> {
        let stamp = sourceStamp(container)
        if let staging, let stamp {
            let dir = staging + "/" + directory
            if let recorded = try? BinaryFile.read(path: dir + "/" + sourceFile, maxSize: 8192),
               let text = String(validating: recorded, as: UTF8.self), text.hasPrefix(stamp + " "),
               let weights = try? EngineContainer.readStaged(path: dir + "/" + weightsFile),
               text == stamp + " " + weights.sha256 {
                return .success(weights)
            }
        }
        let read: (weights: LipSyncWeights, bytes: [UInt8])
        do {
            read = try EngineContainer.read(path: container)
        } catch {
            return .failure(error)
        }
        if let staging {
            let dir = staging + "/" + directory
            guard BinaryFile.makeDirectories(dir),
                  BinaryFile.replaceAtomically(read.bytes, at: dir + "/" + weightsFile, mode: 0o644) else {
                return .failure(AvatarFileError(.writeFailed, "cannot write \(dir)/\(weightsFile)"))
            }
            if let stamp {
                _ = BinaryFile.replaceAtomically(Array((stamp + " " + read.weights.sha256).utf8),
                                                 at: dir + "/" + sourceFile, mode: 0o644)
            }
        }
        return .success(read.weights)
    }

    /// Staged weights in `directory` itself or in its `engine/`.
    package static func staged(in dir: String) -> Result<LipSyncWeights, AvatarFileError> {
        for candidate in [dir + "/" + weightsFile, dir + "/" + directory + "/" + weightsFile] where access(candidate, R_OK) == 0 {
            do {
                return .success(try EngineContainer.readStaged(path: candidate))
            } catch {
                return .failure(error)
            }
        }
        for old in [dir + "/" + oldWeightsFile, dir + "/" + directory + "/" + oldWeightsFile] where access(old, R_OK) == 0 {
            return .failure(AvatarFileError(.version, "'\(dir)' holds an engine staged by an older version (\(oldWeightsFile)); "
                + "start once with the shared engine container and this staging directory again"))
        }
        return .failure(AvatarFileError(.missing, "'\(dir)' holds no staged engine (\(weightsFile)); start once with "
            + "the shared engine container and a staging directory first"))
    }

    /// "path size mtime" of a file, or nil when it cannot be looked at.
    private static func sourceStamp(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return "\(path) \(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    }
}
