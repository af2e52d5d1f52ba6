import Essence2Runtime

/// The API secret sessions use when they start (shared with the C interface's `be_essence2_set_api_secret`).
public enum Essence2Credential {
    /// Stores the secret for engines created after this call; nil clears it. Without a stored secret an engine
    /// reads the environment: `BITHUMAN_API_SECRET`, then `ESSENCE2_API_SECRET`.
    public static func set(_ secret: String?) {
        Credentials.setSecret(secret)
    }

    /// The secret a new session would use: the stored one, else `BITHUMAN_API_SECRET`, else
    /// `ESSENCE2_API_SECRET`; nil when there is none.
    public static var current: String? {
        Credentials.storedSecret ?? Credentials.environment("BITHUMAN_API_SECRET") ?? Credentials.environment("ESSENCE2_API_SECRET")
    }
}
