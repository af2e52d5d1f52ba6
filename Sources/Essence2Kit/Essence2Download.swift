import Essence2Runtime
import Essence2Service
import FoundationEssentials

/// Avatars downloaded by agent code from the service set with `Essence2Credential.setServiceURL` (or
/// `ESSENCE2_SERVICE_URL`), with the API secret of `Essence2Credential`, sha256-checked and cached
/// (docs/sessions.md, Downloads).
public enum Essence2Download {
    /// Whether `identity` returns a cached copy at once and looks for a newer file in the background (the next
    /// call returns it). Default true; false: the service is asked before returning.
    public static var revalidateInBackground: Bool {
        get { setting.withLock { $0 } }
        set { setting.withLock { $0 = newValue } }
    }

    private static let setting = Locked(true)

    /// The `.imx` file of the avatar `agentCode`, ready for `Essence2Engine.create(identity:)`.
    ///
    /// A copy cached for this code that this secret was allowed to open before is returned at once, after its
    /// sha256 is checked (a damaged copy is removed and downloaded again); with `revalidateInBackground` the
    /// service is then asked again in the background. Otherwise the service's metadata is asked for first and
    /// the file downloaded when its sha256 is not cached; without an answer from the service, only a copy this
    /// secret was allowed to open before is returned. The work runs off the caller's task.
    ///
    /// - Parameters:
    ///   - agentCode: the avatar's code at the service.
    ///   - directory: the cache directory; nil for `$XDG_CACHE_HOME/essence2/avatars` (`~/.cache/...`).
    /// - Throws: `Essence2KitError.resourcesUnavailable` when the download is refused (no secret, 401, 403, no such
    ///   avatar), fails (no service, no answer and nothing cached for this secret), does not match its sha256
    ///   (nothing is written), or is of a newer format than this library reads; the reason says which.
    public static func identity(agentCode: String, directory: URL? = nil) async throws -> URL {
        let background = revalidateInBackground
        let path = directory?.path
        let result = await Task.detached {
            AvatarDownloads.fetch(code: agentCode, directory: path, background: background)
        }.value
        switch result {
        case .success(let file):
            return URL(fileURLWithPath: file)
        case .failure(let failure):
            throw Essence2KitError.resourcesUnavailable(reason: failure.reason)
        }
    }
}
