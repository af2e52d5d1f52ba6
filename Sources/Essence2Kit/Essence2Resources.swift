import Essence2Runtime
import Essence2Service
import FoundationEssentials

/// The runtime files an engine needs. The reference's Essence 2 fetches three model files once into Application
/// Support; this library carries everything it needs inside itself (the lip-sync weights are compiled in, the
/// renderer has no model files), so nothing is ever fetched and `ensure()` cannot fail for want of a network.
public enum Essence2Resources {
    /// The release the runtime files come from: this library's version ("1.4.0"), since they are part of it.
    public static var releaseTag: String { LibraryVersion.string.description }

    /// The directory of the runtime files, created when missing: `$XDG_DATA_HOME/essence2/<releaseTag>` (else
    /// `~/.local/share/...`). It is empty, and `Essence2Engine.create(identity:resourcesDirectory:)` accepts it (or
    /// nil): nothing needs fetching.
    /// - Throws: `Essence2KitError.resourcesUnavailable` when neither XDG_DATA_HOME nor HOME is set, or the
    ///   directory cannot be created.
    public static func ensure() async throws -> URL {
        guard let directory = XDGDirectory.path("XDG_DATA_HOME", homeDefault: ".local/share", "essence2/" + releaseTag)
        else {
            throw Essence2KitError.resourcesUnavailable(reason: "neither XDG_DATA_HOME nor HOME is set")
        }
        guard BinaryFile.makeDirectories(directory) else {
            throw Essence2KitError.resourcesUnavailable(reason: "cannot create \(directory)")
        }
        return URL(fileURLWithPath: directory, isDirectory: true)
    }
}
