import Glibc

/// Directory creation and file identity.
enum Directory {
    /// Creates `path` and its missing parents (like `mkdir -p`); an existing directory is fine.
    static func create(_ path: String) throws(CLIError) {
        if FileCheck.isDirectory(path) { return }
        let parent = PathName.directory(path)
        if parent != path && parent != "." && parent != "/" && !FileCheck.isDirectory(parent) {
            try create(parent)
        }
        if mkdir(path, 0o755) != 0 && !(errno == EEXIST && FileCheck.isDirectory(path)) {
            throw CLIError("cannot create directory '\(path)': \(String(cString: strerror(errno)))")
        }
    }

    /// Whether both paths name the same existing file.
    static func sameFile(_ a: String, _ b: String) -> Bool {
        var first = stat(), second = stat()
        guard stat(a, &first) == 0, stat(b, &second) == 0 else { return false }
        return first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }
}
