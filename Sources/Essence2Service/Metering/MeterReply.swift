import Essence2Runtime
/// What came back for a `MeterRequest`, as the session meter understands it (docs/service-protocol.md: 401 is
/// final, 403 a refusal, any other failure "service unreachable").
package enum MeterReply: Sendable, Equatable {
    /// 201 to `open`.
    case opened(sessionID: String, reportIntervalSeconds: Int)
    /// 200 to `usage`.
    case reported
    /// 401 INVALID_SECRET: missing, unknown or revoked secret.
    case invalidSecret(reason: String)
    /// 403 AGENT_NOT_ENTITLED: the account may not use this avatar (nothing billed).
    case notEntitled(reason: String)
    /// 404 NOT_FOUND or 409 SESSION_CLOSED to `usage`: the service no longer has this session open.
    case sessionGone(reason: String)
    /// No answer (connection refused, DNS, TLS, timeout), a 5xx or an answer that makes no sense.
    case unreachable(reason: String)
}
