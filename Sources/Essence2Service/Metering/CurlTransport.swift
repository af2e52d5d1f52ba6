import Essence2Runtime
import CCurlLoader

/// `ServiceTransport` over libcurl, loaded at run time (`e2_curl_load`, only when a service is configured):
/// TLS verified with the system's CA bundle, curl's proxy variables honoured, connect and total timeouts.
/// `@unchecked Sendable`: the table of functions is filled once and never changes.
package struct CurlTransport: ServiceTransport, DownloadTransport, @unchecked Sendable {
    /// The service's base URL.
    let baseURL: String
    private let api: UnsafePointer<e2_curl>
    /// Connect timeout, capped by each request's total.
    static let connectMilliseconds = 3_000

    /// Loads libcurl; nil with the reason when it cannot be loaded.
    package static func make(baseURL: String) -> Result<CurlTransport, LoadFailure> {
        var why = [CChar](repeating: 0, count: 512)
        guard let api = e2_curl_load(&why, Int32(why.count)) else {
            let reason = why.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            return .failure(LoadFailure(reason: "the metering service \(baseURL) is configured but libcurl could not "
                                        + "be loaded (\(reason)); install libcurl4 (apt install libcurl4)"))
        }
        return .success(CurlTransport(baseURL: baseURL, api: api))
    }

    package struct LoadFailure: Error, Sendable {
        package let reason: String
    }

    private init(baseURL: String, api: UnsafePointer<e2_curl>) {
        self.baseURL = baseURL
        self.api = api
    }

    /// Answers to reports and session checks are small; more than this is not the service.
    static let postAnswerLimit = 64 * 1024

    package func post(path: String, body: String, secret: String, timeoutMs: Int) -> ServiceAnswer {
        request(path: path, body: body, secret: secret, timeoutMs: timeoutMs, maxBytes: Self.postAnswerLimit)
    }

    package func get(path: String, secret: String, timeoutMs: Int, maxBytes: Int) -> ServiceAnswer {
        request(path: path, body: nil, secret: secret, timeoutMs: timeoutMs, maxBytes: maxBytes)
    }

    /// One POST (a body) or GET (none), the answer's body kept up to `maxBytes`.
    private func request(path: String, body: String?, secret: String, timeoutMs: Int, maxBytes: Int) -> ServiceAnswer {
        var response = e2_curl_response()
        var why = [CChar](repeating: 0, count: 512)
        let total = max(timeoutMs, 1)
        let connect = min(Self.connectMilliseconds, total)
        let answered: Int32
        if let body {
            answered = e2_curl_request(api, baseURL + path, secret, body, connect, total, max(maxBytes, 0), &response,
                                       &why, Int32(why.count))
        } else {
            answered = e2_curl_request(api, baseURL + path, secret, nil, connect, total, max(maxBytes, 0), &response,
                                       &why, Int32(why.count))
        }
        defer { e2_curl_response_free(&response) }
        guard answered != 0 else {
            return .failed(reason: why.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        }
        var bytes: [UInt8] = []
        if let data = response.body, response.length > 0 {
            bytes = Array(UnsafeRawBufferPointer(start: data, count: response.length))
        }
        return .answered(status: Int(response.status), body: bytes)
    }
}
