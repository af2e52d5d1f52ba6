import Essence2Runtime

/// A command's output file (a video, its audio, a WAV) that appears under its name only once it is complete:
/// the runtime's `AtomicFile` (the package's one atomic writer), written through an `OutputFile`, with the
/// command's messages.
final class AtomicOutput {
    /// The final name.
    let path: String
    /// Where the content is written; hand `/dev/fd/N` of it to a child process.
    let file: OutputFile
    private let atomic: AtomicFile

    init(path: String) throws(CLIError) {
        do {
            atomic = try AtomicFile(path: path)
        } catch {
            throw CLIError("cannot write '\(path)': \(error.description)")
        }
        self.path = path
        file = OutputFile(borrowing: atomic.descriptor, name: path)
    }

    /// Links the finished file into place under `path`. An existing file is replaced at once.
    func commit() throws(CLIError) {
        file.detach()
        do {
            try atomic.commit()
        } catch {
            throw CLIError("cannot write '\(path)': \(error.description)")
        }
    }

    /// Drops what was written; the destination is left as it was.
    func discard() {
        file.detach()
        atomic.discard()
    }
}
