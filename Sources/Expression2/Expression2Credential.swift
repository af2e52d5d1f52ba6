import Essence2Service

/// The API secret sessions use when they start; the same one as `Essence2Credential` and the C interface's
/// `be_essence2_set_api_secret`.
public enum Expression2Credential {
    /// Stores the secret for engines created after this call; nil clears it. Without a stored secret an engine
    /// reads the environment: `ESSENCE2_API_SECRET`, then `BITHUMAN_API_SECRET`.
    public static func set(_ secret: String?) {
        Credentials.setSecret(secret)
    }

    /// The secret a new session would use; nil when there is none.
    public static var current: String? {
        Credentials.resolvedSecret()
    }
}
