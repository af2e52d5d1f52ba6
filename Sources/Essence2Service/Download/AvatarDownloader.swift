import Essence2Runtime
/// Fetches avatars by agent code from the service into an `AvatarCache` (docs/sessions.md, Downloads).
///
/// A copy cached for this code that this secret was allowed to open before is handed out at once, and the
/// service is asked again in the background (`revalidate`): a newer version is downloaded for the next call,
/// and a 401/403 forgets the permission. Otherwise the metadata is asked for, then the file when its sha256
/// is not cached; a file whose sha256 or size differs from the metadata is refused and nothing is written.
/// Without an answer, only a copy this secret was allowed to open is handed out.
package struct AvatarDownloader: Sendable {
    package let transport: any DownloadTransport
    package let cache: AvatarCache
    /// The service's URL: part of each index key, so that two services' codes do not mix.
    package let serviceURL: String
    package let secret: String
    /// Runs the background revalidation (a detached thread; tests run it inline or not at all).
    package let spawn: @Sendable (@escaping @Sendable () -> Void) -> Void

    /// The largest file downloaded.
    package static let maxBytes = 512 * 1024 * 1024
    /// Timeout of the metadata request.
    package static let metadataMilliseconds = 10_000
    /// Timeout of the file request: ten minutes (512 MB at about 1 MB/s).
    package static let fileMilliseconds = 600_000

    package init(transport: any DownloadTransport, cache: AvatarCache, serviceURL: String, secret: String,
                 spawn: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        self.transport = transport
        self.cache = cache
        self.serviceURL = serviceURL
        self.secret = secret
        self.spawn = spawn
    }

    /// The path of the avatar `code`, downloaded or cached. With `background` false the service is asked first
    /// (a refusal is final at once); the cache then serves only when the service does not answer.
    package func fetch(code: String, background: Bool = true) -> Result<String, DownloadFailure> {
        guard !code.isEmpty else { return .failure(.unavailable(reason: "the agent code is empty")) }
        let key = serviceURL + " " + code
        let secretHash = SHA256.hex(SHA256.hash(Array(secret.utf8)))
        let cached = usableEntry(key: key, secretHash: secretHash)
        if background, let cached {
            let copy = self
            spawn { _ = copy.refresh(code: code, key: key, secretHash: secretHash) }
            return .success(cache.path(sha256: cached.sha256))
        }
        let (result, answered) = refresh(code: code, key: key, secretHash: secretHash)
        if case .failure = result, !answered, let cached {
            // No answer (offline, timeout, 5xx): the copy this secret was allowed to open before.
            return .success(cache.path(sha256: cached.sha256))
        }
        return result
    }

    /// The cached record of `key` when its file is there and this secret was allowed to open it.
    private func usableEntry(key: String, secretHash: String) -> AvatarCache.Entry? {
        guard let entry = cache.entry(key), entry.allowed.contains(secretHash),
              cache.holdsIntact(sha256: entry.sha256) else { return nil }
        return entry
    }

    /// Asks the service for the metadata, downloads the file when its sha256 is not cached, and records it.
    /// `answered` is false when the service gave no usable answer (no connection, timeout, 5xx).
    private func refresh(code: String, key: String, secretHash: String)
        -> (result: Result<String, DownloadFailure>, answered: Bool) {
        let path = "/v1/avatars/" + ServiceMessages.percentEncoded(code)
        let metadata: AvatarMetadata
        switch transport.get(path: path, secret: secret, timeoutMs: Self.metadataMilliseconds, maxBytes: 65_536) {
        case .failed(let reason):
            return (.failure(.unavailable(reason: "the service \(serviceURL) did not answer (\(reason))")), false)
        case .answered(let status, let body):
            if let failed = failed(status: status, body: body, code: code, key: key, secretHash: secretHash) {
                return failed
            }
            guard let parsed = AvatarMetadata.parse(body) else {
                return (.failure(.unavailable(reason: "the service's metadata of \(code) is malformed")), false)
            }
            metadata = parsed
        }
        let target = cache.path(sha256: metadata.sha256)
        guard metadata.formatVersion <= Int(AvatarFileFormat.version) else {
            return (.failure(.outdated(path: target, reason: "the service's \(code) is .imx format version "
                + "\(metadata.formatVersion), newer than this library reads (version \(AvatarFileFormat.version)): "
                + "update essence2")), true)
        }
        guard metadata.size <= Self.maxBytes else {
            return (.failure(.unavailable(reason: "the service's \(code) is \(metadata.size) bytes, over the limit "
                + "of \(Self.maxBytes)")), true)
        }
        if !cache.holdsIntact(sha256: metadata.sha256, size: metadata.size) {
            // The body may be no longer than the metadata says: a longer answer stops the transfer at once
            // instead of being buffered (up to maxBytes) and refused afterwards.
            switch transport.get(path: path + "/file", secret: secret, timeoutMs: Self.fileMilliseconds,
                                 maxBytes: metadata.size) {
            case .failed(let reason):
                return (.failure(.unavailable(reason: "the download of \(code) from \(serviceURL) failed (\(reason))")),
                        false)
            case .answered(let status, let body):
                if let failed = failed(status: status, body: body, code: code, key: key, secretHash: secretHash) {
                    return failed
                }
                let received = SHA256.hex(SHA256.hash(body))
                guard received == metadata.sha256, body.count == metadata.size else {
                    return (.failure(.mismatch(reason: "the file of \(code) that \(serviceURL) sent (\(body.count) bytes, "
                        + "sha256 \(received)) is not the one its metadata describes (\(metadata.size) bytes, sha256 "
                        + "\(metadata.sha256)): refused, nothing written")), true)
                }
                guard cache.store(body, sha256: metadata.sha256) else {
                    return (.failure(.unavailable(reason: "could not write \(target)")), true)
                }
            }
        }
        guard cache.update(key, { entry in
            var allowed = entry?.allowed ?? []
            allowed.insert(secretHash)
            entry = AvatarCache.Entry(sha256: metadata.sha256, allowed: allowed)
        }) else {
            return (.failure(.unavailable(reason: "could not write the index of \(cache.directory)")), true)
        }
        return (.success(target), true)
    }

    /// What an answer other than 200 means for `refresh`: the failure, and whether the service answered (not a
    /// 5xx, 408 or 429); a refusal also forgets this secret's permission. Nil for 200.
    private func failed(status: Int, body: [UInt8], code: String, key: String, secretHash: String)
        -> (result: Result<String, DownloadFailure>, answered: Bool)? {
        guard let refusal = refusal(status: status, body: body, code: code) else { return nil }
        if case .refused = refusal {
            cache.update(key) { $0?.allowed.remove(secretHash) }
        }
        return (.failure(refusal), status < 500 && status != 408 && status != 429)
    }

    /// The failure an answer other than 200 means.
    private func refusal(status: Int, body: [UInt8], code: String) -> DownloadFailure? {
        guard status != 200 else { return nil }
        let json = try? JSONParser.parse(body)
        let reason = json?["reason"]?.stringValue ?? "no reason given"
        let error = json?["error"]?.stringValue.map { " " + $0 } ?? ""
        switch status {
        case 401, 403:
            return .refused(reason: "the service refused \(code) for this secret (\(status)\(error): \(reason))")
        case 404:
            return .unavailable(reason: "the service has no avatar \(code) (404\(error): \(reason))")
        default:
            return .unavailable(reason: "the service answered \(status)\(error) for \(code): \(reason)")
        }
    }
}
