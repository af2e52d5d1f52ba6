#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension BinaryFile {
    /// Creates the missing directories of `path`, absolute or relative to the working directory (each with
    /// `mode`); true when `path` is a directory afterwards.
    @discardableResult
    package static func makeDirectories(_ path: String, mode: mode_t = 0o700) -> Bool {
        var prefix = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            prefix += "/" + part
            mkdir(prefix, mode)
        }
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Writes `bytes` into a new file of its own beside `path` (`path.tmp.XXXXXX`, made by `mkstemp`, with
    /// `mode`), synced to disk, and returns that file's path for the caller to rename or link into place; nil,
    /// with nothing left behind, when it could not be written.
    package static func writeTemporary(_ bytes: [UInt8], beside path: String, mode: mode_t) -> String? {
        var template = Array((path + ".tmp.XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return nil }
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var written = 0
        let complete = bytes.withUnsafeBytes { raw -> Bool in
            while written < raw.count {
                let n = write(descriptor, raw.baseAddress! + written, raw.count - written)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                written += n
            }
            return true
        }
        let ok = complete && fchmod(descriptor, mode) == 0 && fsync(descriptor) == 0
        let code = complete ? errno : (errno == 0 ? ENOSPC : errno)
        close(descriptor)
        guard ok else {
            unlink(temporary)
            errno = code
            return nil
        }
        return temporary
    }

    /// Replaces `path` with `bytes` atomically (`writeTemporary`, then a rename): a reader sees the old file
    /// or the new one, never half of one. False when it could not be written, with `errno` saying why. The one
    /// atomic writer of the package: the download cache, the install identifier and the `.imx` writer use it.
    package static func replaceAtomically(_ bytes: [UInt8], at path: String, mode: mode_t) -> Bool {
        guard let temporary = writeTemporary(bytes, beside: path, mode: mode) else { return false }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            errno = code
            return false
        }
        return true
    }
}
