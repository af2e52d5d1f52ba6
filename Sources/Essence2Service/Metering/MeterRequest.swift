import Essence2Runtime
/// What the session meter asks its driver to send to the service (docs/service-protocol.md).
package enum MeterRequest: Sendable, Equatable {
    /// `POST /v1/sessions`: check the secret and name the avatar (the driver adds the avatar's sha256, its file
    /// name, the install identifier and the client version).
    case open
    /// `POST /v1/sessions/{id}/usage`: the session's cumulative figures, whole seconds; `final` closes it.
    case usage(sessionID: String, figures: UsageFigures, final: Bool)
}
