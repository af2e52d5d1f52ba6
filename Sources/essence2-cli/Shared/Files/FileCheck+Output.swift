import Glibc

extension FileCheck {
    /// Throws unless a file can be created at `path`: it is not a directory, and its directory exists and is
    /// writable. Run before any work, so that a mistyped `-o` costs nothing and names the real problem.
    /// - Parameter option: the option that gave the path, for the message ("-o").
    static func requireWritableOutput(_ path: String, option: String) throws(CLIError) {
        guard !path.isEmpty else { throw .usage("\(option) is empty: give the file to write") }
        if path.hasSuffix("/") || isDirectory(path) {
            throw .usage("\(option) \(path) is a directory: give a file name in it")
        }
        let directory = PathName.directory(path)
        var info = stat()
        guard stat(directory, &info) == 0 else {
            let code = errno
            if code == ENOENT {
                throw CLIError("cannot write \(path): the directory \(directory) does not exist; create it first, or choose another \(option)")
            }
            throw CLIError("cannot write \(path): the directory \(directory): \(String(cString: strerror(code)))")
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw CLIError("cannot write \(path): \(directory) is not a directory; choose another \(option)")
        }
        guard access(directory, W_OK) == 0 else {
            throw CLIError("cannot write \(path): the directory \(directory) is not writable (\(String(cString: strerror(errno)))); choose another \(option)")
        }
    }
}
