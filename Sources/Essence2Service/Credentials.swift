import Essence2Runtime
#if canImport(Glibc)
import Glibc
#endif

/// The API secret, the metering service's address and the latest refusal, process-wide (docs/sessions.md).
///
/// With no service configured (the default) sessions run unmetered: nothing leaves the machine and libcurl is
/// never loaded. With one (`be_essence2_set_service_url`, else `ESSENCE2_SERVICE_URL`, else its older name
/// `ESSENCE2_METERING_URL`) every session is checked and metered (`SessionGate`).
package enum Credentials {
    private static let secret = Locked<String?>(nil)
    /// The service set in code: nil means "read the environment", "" means "no service".
    private static let serviceSetting = Locked<String?>(nil)
    private static let refusal = Locked<String>("")

    /// Stores the secret for sessions created later; nil clears it.
    package static func setSecret(_ value: String?) {
        secret.withLock { $0 = value }
    }

    /// The secret stored by `setSecret`, if any.
    package static var storedSecret: String? { secret.withLock { $0 } }

    /// The secret a new session uses: the stored one, else `ESSENCE2_API_SECRET`, else `BITHUMAN_API_SECRET`
    /// (an empty value counts as none).
    package static func resolvedSecret() -> String? {
        let value = secret.withLock({ $0 }) ?? nonEmpty("ESSENCE2_API_SECRET") ?? nonEmpty("BITHUMAN_API_SECRET")
        guard let value, !value.isEmpty else { return nil }
        return value
    }

    /// Sets the service in code (nil: back to the environment; "": no service, whatever the environment says).
    /// Returns a reason when `url` is not an http:// or https:// URL (nothing changes then).
    package static func setServiceURL(_ url: String?) -> String? {
        if let url, !url.isEmpty, !isServiceURL(url) {
            return "service URL '\(url)' must start with http:// or https:// and contain no spaces or control characters"
        }
        serviceSetting.withLock { $0 = url }
        return nil
    }

    /// The metering service's base URL (no trailing slash), or nil when sessions run unmetered.
    package static func serviceURL() -> String? {
        let value = serviceSetting.withLock({ $0 }) ?? nonEmpty("ESSENCE2_SERVICE_URL") ?? nonEmpty("ESSENCE2_METERING_URL")
        guard var url = value, !url.isEmpty else { return nil }
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }

    /// How long `be_essence2_create` waits for the first check, in ms: `ESSENCE2_SERVICE_TIMEOUT_MS`
    /// (100...120000), else 5000.
    package static func startTimeoutMilliseconds() -> Int {
        guard let text = environment("ESSENCE2_SERVICE_TIMEOUT_MS"), let value = Int(text) else { return 5_000 }
        return min(max(value, 100), 120_000)
    }

    /// Whether `url` can name the service.
    /// The most bytes an API secret may have: it travels in one `Authorization: Bearer` header line, which the
    /// HTTP client builds in a fixed buffer (Sources/CCurlLoader); a longer one is refused, never cut.
    package static let maxSecretBytes = 900

    /// Why `secret` cannot be sent, or nil when it can: control characters (a line break would add a header to
    /// the request) or more than `maxSecretBytes` bytes. Sessions and downloads both ask this.
    package static func secretProblem(_ secret: String) -> String? {
        if secret.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "the API secret contains control characters (a line break?); set it again"
        }
        if secret.utf8.count > maxSecretBytes {
            return "the API secret has \(secret.utf8.count) bytes, more than the \(maxSecretBytes) an API secret may have; "
                + "check that the whole secret, and only it, was set"
        }
        return nil
    }

    package static func isServiceURL(_ url: String) -> Bool {
        (url.hasPrefix("http://") || url.hasPrefix("https://"))
            && !url.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F }
    }

    /// The sentence behind the latest refusal; empty when nothing was refused.
    package static var lastRefusal: String { refusal.withLock { $0 } }

    /// Records the latest refusal of this process (create's, or a frame's).
    package static func recordRefusal(_ reason: String) {
        refusal.withLock { if $0 != reason { $0 = reason } }
    }

    /// The value of the environment variable `name`, nil when unset.
    package static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }

    private static func nonEmpty(_ name: String) -> String? {
        guard let value = environment(name), !value.isEmpty else { return nil }
        return value
    }
}
