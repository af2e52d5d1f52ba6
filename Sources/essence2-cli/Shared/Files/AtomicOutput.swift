import Glibc

/// A file that appears under its name only once it is complete. It is written as an anonymous file
/// (`O_TMPFILE`) in the destination's directory, which the kernel frees by itself if the program dies, even by
/// `kill -9`; `commit()` links it into place, replacing an existing file in one step (a rename), so an older
/// file of that name stays whole until then. Where the file system has no `O_TMPFILE`, a hidden
/// `.NAME.partial-PID` file stands in for it (removed on every exit path but `kill -9`).
final class AtomicOutput {
    /// The final name.
    let path: String
    /// Where the content is written; hand `/dev/fd/N` of it to a child process with `inherit(as:)`.
    let file: OutputFile
    /// The hidden stand-in, when there is no anonymous file.
    private let partialPath: String?
    private var done = false

    /// `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`); Glibc's module does not export the macro.
    private static let anonymous: Int32 = 0o20000000 | O_DIRECTORY

    init(path: String) throws(CLIError) {
        self.path = path
        let directory = PathName.directory(path)
        let descriptor = open(directory, Self.anonymous | O_RDWR | O_CLOEXEC, 0o644)
        if descriptor >= 0 {
            file = OutputFile(descriptor: descriptor, name: path)
            partialPath = nil
            return
        }
        let anonymousError = errno
        guard anonymousError == EOPNOTSUPP || anonymousError == EISDIR || anonymousError == EINVAL else {
            throw CLIError("cannot write '\(path)': \(String(cString: strerror(anonymousError)))")
        }
        let partial = "\(directory)/.\(PathName.base(path)).partial-\(getpid())"
        file = try OutputFile(creating: partial)
        partialPath = partial
    }

    deinit { discard() }

    /// Links the finished file into place under `path` (after closing it). An existing file is replaced at once.
    func commit() throws(CLIError) {
        guard !done else { return }
        try file.flushToDisk()
        if let partialPath {
            try file.close()
            done = true
            guard rename(partialPath, path) == 0 else {
                let code = errno
                unlink(partialPath)
                throw CLIError("cannot write '\(path)': \(String(cString: strerror(code)))")
            }
            return
        }
        // Link under a unique hidden name first: linkat cannot replace, rename can.
        let staging = "\(PathName.directory(path))/.\(PathName.base(path)).new-\(getpid())"
        unlink(staging)
        let linked = linkat(AT_FDCWD, "/proc/self/fd/\(file.descriptor)", AT_FDCWD, staging, AT_SYMLINK_FOLLOW)
        let linkError = errno
        try file.close()
        done = true
        guard linked == 0 else {
            throw CLIError("cannot write '\(path)': \(String(cString: strerror(linkError)))")
        }
        guard rename(staging, path) == 0 else {
            let code = errno
            unlink(staging)
            throw CLIError("cannot write '\(path)': \(String(cString: strerror(code)))")
        }
    }

    /// Drops what was written; the destination is left as it was.
    func discard() {
        guard !done else { return }
        done = true
        try? file.close()
        if let partialPath { unlink(partialPath) }
    }
}
