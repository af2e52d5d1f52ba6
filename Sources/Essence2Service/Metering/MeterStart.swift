import Essence2Runtime
/// The first check of a session, which `be_essence2_create` waits for.
package enum MeterStart: Sendable, Equatable {
    /// No answer yet.
    case pending
    /// The service accepted the secret and the avatar: the engine may start.
    case accepted
    /// Refused: no secret, 401, 403, or the service unreachable at start.
    case refused(reason: String)
}
