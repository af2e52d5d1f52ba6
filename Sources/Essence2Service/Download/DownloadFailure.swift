import Essence2Runtime
/// Why an avatar could not be handed out.
package enum DownloadFailure: Error, Sendable, Equatable {
    /// The service refused this secret (401 INVALID_SECRET, 403 AGENT_NOT_ENTITLED).
    case refused(reason: String)
    /// No service, no answer, no such avatar, or nothing cached for this secret while offline.
    case unavailable(reason: String)
    /// What the service sent is not what its metadata describes (sha256 or size): nothing was written.
    case mismatch(reason: String)
    /// The service's avatar is of a newer .imx format than this library reads; `path` is where it would be.
    case outdated(path: String, reason: String)

    package var reason: String {
        switch self {
        case .refused(let reason), .unavailable(let reason), .mismatch(let reason), .outdated(_, let reason):
            return reason
        }
    }
}
