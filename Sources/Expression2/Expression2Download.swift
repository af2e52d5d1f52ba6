import Essence2Runtime
import Essence2Service
import FoundationEssentials

/// Character avatars downloaded by agent code from the service (`ESSENCE2_SERVICE_URL`), with the API secret of
/// `Expression2Credential`, sha256-checked and cached, as `Essence2Download` does (docs/sessions.md, Downloads).
public enum Expression2Download {
    /// Why a download failed: refused (no secret, 401, 403, no such avatar), unreachable with nothing cached,
    /// a file that does not match its sha256 (nothing is written), or of a newer format than this library reads.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    /// Whether `avatar` returns a cached copy at once and looks for a newer file in the background (the next
    /// call returns it). Default true; false: the service is asked before returning.
    public static var revalidateInBackground: Bool {
        get { setting.withLock { $0 } }
        set { setting.withLock { $0 = newValue } }
    }

    private static let setting = Locked(true)

    /// The `.imx` file of the character avatar `agentCode`, ready for `Expression2Engine.create`.
    /// - Parameter directory: the cache directory; nil for `$XDG_CACHE_HOME/essence2/expression2/avatars`
    ///   (`~/.cache/...`).
    /// - Throws: `Failure`.
    public static func avatar(agentCode: String, directory: URL? = nil) async throws -> URL {
        let background = revalidateInBackground
        guard let path = directory?.path ?? XDGDirectory.path("XDG_CACHE_HOME", homeDefault: ".cache", "essence2/expression2/avatars") else {
            throw Failure(reason: "no cache directory: neither XDG_CACHE_HOME nor HOME is set")
        }
        let result = await Task.detached {
            AvatarDownloads.fetch(code: agentCode, directory: path, background: background)
        }.value
        switch result {
        case .success(let file): return URL(fileURLWithPath: file)
        case .failure(let failure): throw Failure(reason: failure.reason)
        }
    }
}
