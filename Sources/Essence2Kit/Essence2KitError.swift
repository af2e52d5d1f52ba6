/// Why an engine could not be made or could not start.
public enum Essence2KitError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The identity (.imx avatar file) is missing, unreadable, corrupt or fails its checksum.
    case identityUnreadable(reason: String)
    /// The session was refused by the credential check.
    case meteringRefused(reason: String)
    /// The resources directory given does not exist or is not a directory.
    case resourcesUnavailable(reason: String)
    /// The engine did not become ready within the ready timeout.
    case notReady
    /// The identity file's format is older than this renderer supports: get the avatar again (or rebuild it).
    case identityOutdated(path: String, agentCode: String?, reason: String)

    public var description: String {
        switch self {
        case .identityUnreadable(let reason): return "identity unreadable: \(reason)"
        case .meteringRefused(let reason): return "session refused: \(reason)"
        case .resourcesUnavailable(let reason): return "resources unavailable: \(reason)"
        case .notReady: return "the engine did not become ready in time"
        case .identityOutdated(let path, let agentCode, let reason):
            return "identity \(path)\(agentCode.map { " (\($0))" } ?? "") is outdated: \(reason)"
        }
    }
}
