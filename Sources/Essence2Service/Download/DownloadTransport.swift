import Essence2Runtime
/// How the avatar downloader talks to the service: one GET, answered or not. `CurlTransport` is the real one;
/// tests inject their own.
package protocol DownloadTransport: Sendable {
    /// GETs `path` below the service's URL with the secret as a bearer token, within `timeoutMs`, keeping at
    /// most `maxBytes` of the body (a longer one is a failure).
    func get(path: String, secret: String, timeoutMs: Int, maxBytes: Int) -> ServiceAnswer
}
