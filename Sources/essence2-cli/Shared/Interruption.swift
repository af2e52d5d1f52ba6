import Glibc
import Synchronization

/// Ctrl-C (SIGINT) and SIGTERM during a long job: remembered, so that the job stops at the next frame
/// and removes its partial output instead of dying with it half-written.
enum Interruption {
    /// The exit status after an interruption (128 + SIGINT, as shells report it).
    static let status: Int32 = 130

    /// Starts remembering SIGINT and SIGTERM instead of dying at once.
    static func catchSignals() {
        signal(SIGINT) { _ in interruptionRequested.store(true, ordering: .relaxed) }
        signal(SIGTERM) { _ in interruptionRequested.store(true, ordering: .relaxed) }
    }

    /// Whether a SIGINT or SIGTERM has come since `catchSignals()`.
    static var requested: Bool { interruptionRequested.load(ordering: .relaxed) }

    /// Throws when an interruption has come.
    static func check() throws(CLIError) {
        if requested { throw CLIError("interrupted; partial output removed", status: status) }
    }
}

/// Set from the signal handler (an atomic store is async-signal-safe).
private let interruptionRequested = Atomic<Bool>(false)
