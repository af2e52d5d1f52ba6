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

    /// Replaces `path` with `bytes` atomically (an `AtomicFile`: written, synced, then renamed over it): a reader
    /// sees the old file or the new one, never half of one. False when it could not be written, with `errno`
    /// saying why. The `.imx` writer, the download cache and the engine staging use it.
    package static func replaceAtomically(_ bytes: [UInt8], at path: String, mode: mode_t) -> Bool {
        do throws(AtomicFile.Failure) {
            let file = try AtomicFile(path: path, mode: mode)
            try file.write(bytes)
            try file.commit()
            return true
        } catch {
            errno = error.code
            return false
        }
    }
}
