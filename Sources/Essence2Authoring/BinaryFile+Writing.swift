#if canImport(Glibc)
import Glibc
#endif
import Essence2Runtime

extension BinaryFile {
    /// Writes `bytes` to `path` through a temporary file in the same directory and a rename, so that a
    /// reader never sees a half-written file. On failure the temporary file is removed, and the error names
    /// `path` (not the temporary file) and why.
    package static func write(_ bytes: [UInt8], to path: String) throws(AvatarFileError) {
        let temporary = path + ".tmp\(getpid())"
        guard let file = fopen(temporary, "wb") else {
            throw AvatarFileError(.writeFailed, "cannot write \(path): \(errorText(errno))")
        }
        let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, bytes.count, file) }
        let flushed = fflush(file) == 0
        let closed = fclose(file) == 0
        guard written == bytes.count, flushed, closed else {
            let code = errno
            unlink(temporary)
            throw AvatarFileError(.writeFailed, "cannot write \(path): \(errorText(code))")
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw AvatarFileError(.writeFailed, "cannot write \(path): \(errorText(code))")
        }
    }
}
