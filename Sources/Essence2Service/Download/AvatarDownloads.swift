import Essence2Runtime
#if canImport(Glibc)
import Glibc
#endif

/// Avatar downloads from the configured service (`ESSENCE2_SERVICE_URL` / `be_essence2_set_service_url`) with
/// the configured API secret, into the default cache or a given directory; the entry point of the C interface,
/// Essence2Kit and the command.
package enum AvatarDownloads {
    /// The path of the avatar `code` (see `AvatarDownloader.fetch`). `directory` overrides the cache directory.
    package static func fetch(code: String, directory: String?, background: Bool) -> Result<String, DownloadFailure> {
        guard let url = Credentials.serviceURL() else {
            return .failure(.unavailable(reason: "no service is configured (set ESSENCE2_SERVICE_URL or call "
                + "be_essence2_set_service_url) to download avatar \(code) from"))
        }
        guard let secret = Credentials.resolvedSecret() else {
            return .failure(.refused(reason: "no API secret (set ESSENCE2_API_SECRET or call be_essence2_set_api_secret) "
                + "to download avatar \(code) from \(url)"))
        }
        if let problem = Credentials.secretProblem(secret) {
            return .failure(.refused(reason: problem + " (downloading avatar \(code))"))
        }
        guard let directory = directory.flatMap({ $0.isEmpty ? nil : $0 }) ?? AvatarCache.defaultDirectory() else {
            return .failure(.unavailable(reason: "no cache directory: neither XDG_CACHE_HOME nor HOME is set"))
        }
        let transport: CurlTransport
        switch CurlTransport.make(baseURL: url) {
        case .success(let made): transport = made
        case .failure(let failure): return .failure(.unavailable(reason: failure.reason))
        }
        let downloader = AvatarDownloader(transport: transport, cache: AvatarCache(directory: directory),
                                          serviceURL: url, secret: secret, spawn: detached)
        return downloader.fetch(code: code, background: background)
    }

    /// The agent code of a file this library downloaded into the cache directory it sits in, for the service
    /// configured now; nil for any other file. (How `Essence2Engine.create` fetches an outdated avatar again.)
    package static func agentCode(ofDownloaded path: String) -> String? {
        guard let url = Credentials.serviceURL(), let slash = path.lastIndex(of: "/") else { return nil }
        let name = path[path.index(after: slash)...]
        guard name.hasSuffix(".imx") else { return nil }
        let sha256 = String(name.dropLast(4))
        guard AvatarMetadata.isSHA256(sha256) else { return nil }
        let directory = String(path[..<slash])
        for key in AvatarCache(directory: directory.isEmpty ? "/" : directory).keys(sha256: sha256) {
            let prefix = url + " "
            if key.hasPrefix(prefix) { return String(key.dropFirst(prefix.count)) }
        }
        return nil
    }

    /// Runs `work` on a new detached thread (inline when no thread can be started).
    package static func detached(_ work: @escaping @Sendable () -> Void) {
        final class Work {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let context = Unmanaged.passRetained(Work(work)).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { raw in
            Unmanaged<Work>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, context)
        guard started == 0 else {
            Unmanaged<Work>.fromOpaque(context).takeRetainedValue().body()
            return
        }
        pthread_detach(thread)
    }
}
