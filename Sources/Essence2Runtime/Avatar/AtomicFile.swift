#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file that appears under its name only once it is complete: the one atomic writer of the package (files
/// written from bytes go through `BinaryFile.replaceAtomically`, streamed output such as the command's videos
/// writes to `descriptor` directly). It is written as an anonymous file (`O_TMPFILE`) in the destination's
/// directory, which the kernel frees by itself if the program dies, even by `kill -9`; `commit` syncs it and links
/// it into place, replacing an existing file in one step (a rename), so an older file of that name stays whole
/// until then. Where the file system has no `O_TMPFILE`, a hidden `.NAME.partial-PID-N` file stands in for it
/// (removed on every exit path but `kill -9`). Failures are `errno` values. Not thread-safe: one writer.
package final class AtomicFile {
    /// The final name.
    package let path: String
    /// Where the content is written (-1 once committed or discarded); pass it to a child process as /dev/fd/N.
    package private(set) var descriptor: Int32
    /// The hidden stand-in, when there is no anonymous file.
    private var partialPath: String?

    /// `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`); Glibc's module does not export the macro.
    private static let anonymous: Int32 = 0o20000000 | O_DIRECTORY

    /// Opens the file-to-be of `path` with permissions `mode` (the umask not applied); throws the `errno` of a failure.
    package init(path: String, mode: mode_t = 0o644) throws(AtomicFile.Failure) {
        self.path = path
        let directory = Self.directory(of: path)
        let descriptor = open(directory, Self.anonymous | O_RDWR | O_CLOEXEC, mode)
        if descriptor >= 0 {
            guard fchmod(descriptor, mode) == 0 else {  // the mode as given, whatever the umask
                let code = errno
                close(descriptor)
                throw Failure(code: code)
            }
            self.descriptor = descriptor
            partialPath = nil
            return
        }
        let code = errno
        guard code == EOPNOTSUPP || code == EISDIR || code == EINVAL else { throw Failure(code: code) }
        var template = Array("\(directory)/.\(Self.base(of: path)).partial-\(getpid())-XXXXXX".utf8CString)
        let partial = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard partial >= 0 else { throw Failure(code: errno) }
        guard fcntl(partial, F_SETFD, FD_CLOEXEC) == 0, fchmod(partial, mode) == 0 else {
            let code = errno
            close(partial)
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
            throw Failure(code: code)
        }
        self.descriptor = partial
        partialPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    deinit { discard() }

    /// An `errno` value.
    package struct Failure: Error, Sendable, Equatable {
        package let code: Int32
        /// `strerror`'s words for it.
        package var description: String { String(cString: strerror(code)) }
    }

    /// Writes all of `bytes` (partial writes and `EINTR` retried).
    package func write(_ bytes: [UInt8]) throws(Failure) {
        try bytes.withUnsafeBufferPointer { (buffer) throws(Failure) in try write(UnsafeRawBufferPointer(buffer)) }
    }

    /// Writes all of `bytes` (partial writes and `EINTR` retried).
    package func write(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
        guard descriptor >= 0 else { throw Failure(code: EBADF) }
        if let code = Self.writeAll(bytes, to: descriptor) { throw Failure(code: code) }
    }

    /// Writes all of `bytes` to `descriptor`, partial writes and `EINTR` retried: nil when done, else the `errno`
    /// (`ENOSPC` when the file takes no more). The command's own output files write through it too.
    package static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32? {
        guard var cursor = bytes.baseAddress else { return nil }
        var left = bytes.count
        while left > 0 {
            let written = Glibc.write(descriptor, cursor, left)
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if written == 0 { return ENOSPC }
            cursor += written
            left -= written
        }
        return nil
    }

    /// Syncs the file and gives it its name: replacing an existing file in one step, or with `replacing: false`
    /// only when no file has that name (`EEXIST` otherwise: what was there stays). The descriptor is closed either
    /// way; after a failure nothing is left behind.
    package func commit(replacing: Bool = true) throws(Failure) {
        guard descriptor >= 0 else { throw Failure(code: EBADF) }
        defer { discard() }
        if fsync(descriptor) != 0 && errno != EINVAL { throw Failure(code: errno) }
        let source = partialPath ?? "/proc/self/fd/\(descriptor)"
        let follow = partialPath == nil ? AT_SYMLINK_FOLLOW : 0
        if !replacing {
            guard linkat(AT_FDCWD, source, AT_FDCWD, path, follow) == 0 else { throw Failure(code: errno) }
            return
        }
        if let partialPath {
            guard rename(partialPath, path) == 0 else { throw Failure(code: errno) }
            self.partialPath = nil
            return
        }
        // Link under a unique hidden name first: linkat cannot replace, rename can.
        let staging = "\(Self.directory(of: path))/.\(Self.base(of: path)).new-\(getpid())-\(descriptor)"
        unlink(staging)
        guard linkat(AT_FDCWD, source, AT_FDCWD, staging, follow) == 0 else { throw Failure(code: errno) }
        guard rename(staging, path) == 0 else {
            let code = errno
            unlink(staging)
            throw Failure(code: code)
        }
    }

    /// Drops what was written (the destination is left as it was); nothing after a commit.
    package func discard() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
        if let partialPath { unlink(partialPath) }
    }

    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func base(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
    }
}
