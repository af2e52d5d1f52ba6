import Glibc

/// Checks on input paths that give a clear sentence instead of a library's terse error.
enum FileCheck {
    /// Whether `path` names an existing regular file (or a link to one).
    static func isFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Whether `path` names an existing directory.
    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Throws unless `path` is a regular file this process may read.
    /// The size in bytes of the file at `path`, or nil when it cannot be examined.
    static func size(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }

    static func requireReadableFile(_ path: String, what: String, status: Int32) throws(CLIError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw CLIError("\(what) '\(path)': \(String(cString: strerror(errno)))", status: status)
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw CLIError("\(what) '\(path)' is a directory", status: status)
        }
        guard access(path, R_OK) == 0 else {
            throw CLIError("\(what) '\(path)': \(String(cString: strerror(errno)))", status: status)
        }
    }
}
