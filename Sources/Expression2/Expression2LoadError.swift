/// Why `Expression2Engine.create` could not make an engine.
public enum Expression2LoadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The API secret is missing or rejected, or the service could not be reached at the start.
    case meteringRefused(reason: String)
    /// The avatar container is missing, unreadable, corrupt, fails its checksum, or is not a character avatar
    /// (a photoreal one goes to `Essence2Engine`). Beyond the reference.
    case avatarUnreadable(reason: String)
    /// The shared engine container (or the staged copy in `sharedEngineDir`) is missing, corrupt or fails its
    /// checksum. Beyond the reference.
    case engineUnreadable(reason: String)
    /// The staging directory cannot be used (missing, not a directory, not writable). Beyond the reference.
    case stagingUnavailable(reason: String)
    /// The engine did not render its first frame in time. Beyond the reference.
    case notReady

    public var description: String {
        switch self {
        case .meteringRefused(let reason): return "session refused: \(reason)"
        case .avatarUnreadable(let reason): return "avatar unreadable: \(reason)"
        case .engineUnreadable(let reason): return "engine container unreadable: \(reason)"
        case .stagingUnavailable(let reason): return "staging directory unusable: \(reason)"
        case .notReady: return "the engine did not become ready in time"
        }
    }
}
