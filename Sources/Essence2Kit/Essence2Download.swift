import Essence2Runtime

/// Avatars downloaded by agent code from the service set with `Essence2Credential.setServiceURL` (or
/// `ESSENCE2_SERVICE_URL`), with the API secret of `Essence2Credential`, and cached (docs/sessions.md,
/// Downloads).
public enum Essence2Download {
    /// The path of the `.imx` file of the avatar `agentCode`, ready for `Essence2Engine`.
    ///
    /// A copy cached for this code that this secret was allowed to open before is returned at once; with
    /// `revalidateInBackground` the service is then asked again on a detached thread (a newer version is
    /// downloaded for the next call; a refusal forgets the permission). Otherwise, or with
    /// `revalidateInBackground: false`, the service's metadata is asked for first and the file downloaded when
    /// its sha256 is not cached; without an answer from the service, only a copy this secret was allowed to
    /// open before is returned.
    ///
    /// - Parameters:
    ///   - agentCode: the avatar's code at the service.
    ///   - directory: the cache directory; nil for `$XDG_CACHE_HOME/essence2/avatars` (`~/.cache/...`).
    ///   - revalidateInBackground: return a cached copy at once and revalidate it in the background.
    /// - Throws: `Essence2KitError.meteringRefused` when the service refuses the secret (401, 403) or there is
    ///   none; `.resourcesUnavailable` with no service, no answer and nothing cached for this secret, or no
    ///   such avatar; `.identityUnreadable` when the file received is not the one described (nothing is
    ///   written); `.identityOutdated` when the service's avatar is of a newer format than this library reads.
    public static func identity(agentCode: String, directory: String? = nil,
                                revalidateInBackground: Bool = true) throws(Essence2KitError) -> String {
        switch AvatarDownloads.fetch(code: agentCode, directory: directory, background: revalidateInBackground) {
        case .success(let path):
            return path
        case .failure(.refused(let reason)):
            throw .meteringRefused(reason: reason)
        case .failure(.unavailable(let reason)):
            throw .resourcesUnavailable(reason: reason)
        case .failure(.mismatch(let reason)):
            throw .identityUnreadable(reason: reason)
        case .failure(.outdated(let path, let reason)):
            throw .identityOutdated(path: path, agentCode: agentCode, reason: reason)
        }
    }
}
