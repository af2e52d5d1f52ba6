#if canImport(Glibc)
import Glibc
#endif

/// File-system checks the Kit makes before it starts an engine.
enum DirectoryCheck {
    /// Whether `path` names an existing directory.
    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}
