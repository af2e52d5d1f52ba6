#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole-file reads and atomic whole-file writes through libc (the engine does not use Foundation).
package enum BinaryFile {
    /// The bytes of the regular file at `path`, refusing files larger than `maxSize` before reading them.
    package static func read(path: String, maxSize: Int) throws(AvatarFileError) -> [UInt8] {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR {
                throw AvatarFileError(.missing, "no such file: \(path)")
            }
            throw AvatarFileError(.unreadable, "cannot open \(path): \(errorText(code))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw AvatarFileError(.unreadable, "\(path) is not a regular file")
        }
        let size = Int(info.st_size)
        guard size <= maxSize else {
            throw AvatarFileError(.tooLarge, "\(path) has \(size) bytes, more than the limit of \(maxSize)")
        }
        guard let file = fopen(path, "rb") else {
            let code = errno
            throw AvatarFileError(code == ENOENT ? .missing : .unreadable, "cannot open \(path): \(errorText(code))")
        }
        defer { fclose(file) }
        // Read one byte past the size stat gave, to notice a file that grew meanwhile.
        var bytes = [UInt8](repeating: 0, count: size + 1)
        let got = bytes.withUnsafeMutableBytes { fread($0.baseAddress, 1, size + 1, file) }
        guard ferror(file) == 0 else {
            throw AvatarFileError(.unreadable, "cannot read \(path): \(errorText(errno))")
        }
        guard got <= size else {
            throw AvatarFileError(.unreadable, "\(path) changed while it was being read")
        }
        bytes.removeLast(bytes.count - got)
        return bytes
    }

    package static func errorText(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}
