import Glibc

/// A private directory under $TMPDIR (or /tmp) for intermediate files, removed with the files named in it.
final class TemporaryDirectory {
    let path: String
    private var files: [String] = []

    init() throws(CLIError) {
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/essence2-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw CLIError("cannot create a temporary directory in \(base): \(String(cString: strerror(errno)))")
        }
        path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// A path for a file called `name` inside the directory; it is deleted by `remove()`.
    func file(_ name: String) -> String {
        let full = "\(path)/\(name)"
        files.append(full)
        return full
    }

    /// Deletes the files handed out and the directory.
    func remove() {
        for file in files { unlink(file) }
        files.removeAll()
        rmdir(path)
    }

    deinit { remove() }
}
