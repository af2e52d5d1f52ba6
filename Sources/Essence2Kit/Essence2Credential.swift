import Essence2Runtime
import Essence2Service

/// The API secret sessions use when they start (shared with the C interface's `be_essence2_set_api_secret`).
public enum Essence2Credential {
    /// Stores the secret for engines created after this call; nil clears it. Without a stored secret an engine
    /// reads the environment: `ESSENCE2_API_SECRET`, then `BITHUMAN_API_SECRET` (as include/essence2.h says).
    public static func set(_ secret: String?) {
        Credentials.setSecret(secret)
    }

    /// The secret a new session would use: the stored one, else `ESSENCE2_API_SECRET`, else
    /// `BITHUMAN_API_SECRET`; nil when there is none (the same rule as the C interface).
    public static var current: String? {
        Credentials.resolvedSecret()
    }

    /// Sets the metering service for engines created after this call (docs/sessions.md), as
    /// `be_essence2_set_service_url` does: nil goes back to the environment (`ESSENCE2_SERVICE_URL`, else
    /// `ESSENCE2_METERING_URL`), "" means no service (unmetered). Returns false, changing nothing, when `url` is
    /// not an http:// or https:// URL.
    @discardableResult
    public static func setServiceURL(_ url: String?) -> Bool {
        Credentials.setServiceURL(url) == nil
    }

    /// The metering service new engines use; nil when they run unmetered (the default).
    public static var serviceURL: String? {
        Credentials.serviceURL()
    }
}
