import Glibc

/// A nameless temporary file under $TMPDIR (or /tmp): created and unlinked at once, so nothing is left
/// behind on any exit, `kill -9` included. For a child's log, read back with `tail`.
final class ScratchFile {
    let descriptor: Int32

    init() throws(CLIError) {
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/essence2-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let start = buffer.baseAddress else { return -1 }
            let descriptor = mkstemp(start)
            if descriptor >= 0 { unlink(start) }
            return descriptor
        }
        guard made >= 0 else {
            throw CLIError("cannot create a temporary file in \(base): \(String(cString: strerror(errno))) "
                           + "(set TMPDIR to a writable directory)")
        }
        _ = fcntl(made, F_SETFD, FD_CLOEXEC)
        descriptor = made
    }

    deinit { close(descriptor) }

    /// The last `lines` non-empty lines written to the file (at most the last 64 KiB are read).
    func tail(lines count: Int) -> [String] {
        let size = lseek(descriptor, 0, SEEK_END)
        guard size > 0 else { return [] }
        let length = Int(min(size, 65_536))
        var bytes = [UInt8](repeating: 0, count: length)
        let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, length, off_t(size) - off_t(length)) }
        guard got > 0 else { return [] }
        let text = String(decoding: bytes[0..<got], as: UTF8.self)
        return Array(text.split(separator: "\n").map(String.init).filter { !$0.isEmpty }.suffix(count))
    }
}
