#if canImport(Glibc)
import Glibc
#endif
import Essence2Runtime

extension BinaryFile {
    /// Writes `bytes` to `path` atomically with the runtime's one writer (`replaceAtomically`: a temporary file
    /// beside it, synced, then a rename), so that a reader never sees a half-written file. On failure nothing is
    /// left behind, and the error names `path` (not the temporary file) and why.
    package static func write(_ bytes: [UInt8], to path: String) throws(AvatarFileError) {
        errno = 0
        guard replaceAtomically(bytes, at: path, mode: 0o644) else {
            throw AvatarFileError(.writeFailed, "cannot write \(path): \(errorText(errno == 0 ? EIO : errno))")
        }
    }
}
