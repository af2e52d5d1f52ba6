import Essence2Runtime
import Glibc

/// A file descriptor written with full writes (partial writes and EINTR retried); errors carry the path.
final class OutputFile {
    let path: String
    private(set) var descriptor: Int32
    /// Whether this closes the descriptor (false: its owner does, as `AtomicOutput`'s `AtomicFile`).
    private let owns: Bool

    /// Creates (or truncates) `path`.
    init(creating path: String) throws(CLIError) {
        self.path = path
        owns = true
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if descriptor < 0 {
            throw CLIError("cannot create '\(path)': \(String(cString: strerror(errno)))")
        }
    }

    /// Wraps an already open descriptor (for example a pipe), which this closes; `name` is used in messages.
    init(descriptor: Int32, name: String) {
        path = name
        self.descriptor = descriptor
        owns = true
    }

    /// Writes through a descriptor that its owner closes; `name` is used in messages.
    init(borrowing descriptor: Int32, name: String) {
        path = name
        self.descriptor = descriptor
        owns = false
    }

    deinit { if owns, descriptor >= 0 { Glibc.close(descriptor) } }

    /// Stops writing through a borrowed descriptor (its owner is about to close it): later writes fail with EBADF
    /// instead of reaching whatever file reuses the number.
    func detach() {
        if !owns { descriptor = -1 }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(CLIError) {
        if let code = AtomicFile.writeAll(bytes, to: descriptor) {
            throw CLIError("cannot write '\(path)': \(String(cString: strerror(code)))")
        }
    }

    func write(_ bytes: [UInt8]) throws(CLIError) {
        try bytes.withUnsafeBufferPointer { (buffer) throws(CLIError) in try write(UnsafeRawBufferPointer(buffer)) }
    }

    /// Makes sure what was written is on disk before the file gets its name (a crash then cannot leave an
    /// empty file under a good name).
    func flushToDisk() throws(CLIError) {
        guard descriptor >= 0 else { return }
        if fsync(descriptor) != 0 && errno != EINVAL {
            throw CLIError("cannot write '\(path)': \(String(cString: strerror(errno)))")
        }
    }

    /// Closes the descriptor (when this owns it); a failing close (a full disk can show up only here) is an error.
    func close() throws(CLIError) {
        guard owns, descriptor >= 0 else { return }
        let status = Glibc.close(descriptor)
        descriptor = -1
        if status != 0 {
            throw CLIError("cannot write '\(path)': \(String(cString: strerror(errno)))")
        }
    }
}
