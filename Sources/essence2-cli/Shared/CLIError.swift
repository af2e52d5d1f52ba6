/// A failure to report to the user: one sentence and the exit status that goes with it.
struct CLIError: Error, CustomStringConvertible {
    var message: String
    var status: Int32

    init(_ message: String, status: Int32 = ExitStatus.failure) {
        self.message = message
        self.status = status
    }

    /// A command-line mistake (exit status 2).
    static func usage(_ message: String) -> CLIError { CLIError(message, status: ExitStatus.usage) }

    var description: String { message }
}
