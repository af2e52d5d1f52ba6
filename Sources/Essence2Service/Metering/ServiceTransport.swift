import Essence2Runtime
/// How the session driver talks to the service: one JSON POST, answered or not. `CurlTransport` is the real
/// one; tests inject their own.
package protocol ServiceTransport: Sendable {
    /// POSTs `body` to `path` below the service's URL with the secret as a bearer token, within `timeoutMs`.
    func post(path: String, body: String, secret: String, timeoutMs: Int) -> ServiceAnswer
}

/// What a POST gave.
package enum ServiceAnswer: Sendable, Equatable {
    /// An HTTP answer, whatever its status.
    case answered(status: Int, body: [UInt8])
    /// No answer: the transport's reason (connection refused, timeout, TLS, DNS...).
    case failed(reason: String)
}
