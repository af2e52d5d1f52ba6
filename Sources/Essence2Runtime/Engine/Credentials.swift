
#if canImport(Glibc)
import Glibc
#endif

/// The API secret and the credential check made when a session starts.
///
/// This version has no metering client: with no metering service configured (the default), sessions run
/// without metering and are never refused. A host that configures one (`ESSENCE2_METERING_URL`) expects
/// metered sessions, so sessions are then refused with a reason rather than run unmetered.
package enum Credentials {
    private static let secret = Locked<String?>(nil)
    private static let refusal = Locked<String>("")

    /// Stores the secret for sessions created later; nil clears it.
    package static func setSecret(_ value: String?) {
        secret.withLock { $0 = value }
    }

    /// The secret stored by `setSecret`, if any.
    package static var storedSecret: String? { secret.withLock { $0 } }

    /// The secret a new session uses: the stored one, else `ESSENCE2_API_SECRET`, else `BITHUMAN_API_SECRET`.
    package static func resolvedSecret() -> String? {
        if let stored = secret.withLock({ $0 }) { return stored }
        return environment("ESSENCE2_API_SECRET") ?? environment("BITHUMAN_API_SECRET")
    }

    /// The sentence behind the latest refusal; empty when nothing was refused.
    package static var lastRefusal: String { refusal.withLock { $0 } }

    /// Checks a new session. Returns nil when it may start, else the reason it is refused.
    package static func admitSession() -> String? {
        guard let service = environment("ESSENCE2_METERING_URL"), !service.isEmpty else { return nil }
        let reason = "metering service \(service) is configured, but this build of libessence2 has no metering "
            + "client; unset ESSENCE2_METERING_URL to run unmetered"
        refusal.withLock { $0 = reason }
        return reason
    }

    /// The value of the environment variable `name`, nil when unset.
    package static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }
}
