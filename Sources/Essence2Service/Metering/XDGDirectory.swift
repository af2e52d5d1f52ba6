import Essence2Runtime
/// Where the library keeps its files: the XDG base directories (the install identifier in the state
/// directory, downloaded avatars in the cache directory).
package enum XDGDirectory {
    /// `$variable/relative` when the variable holds an absolute path, else `$HOME/homeDefault/relative`; nil when
    /// neither is set. `XDGDirectory.path("XDG_CACHE_HOME", homeDefault: ".cache", "essence2/avatars")`.
    package static func path(_ variable: String, homeDefault: String, _ relative: String) -> String? {
        if let base = Credentials.environment(variable), base.hasPrefix("/") {
            return base + "/" + relative
        }
        if let home = Credentials.environment("HOME"), home.hasPrefix("/") {
            return home + "/" + homeDefault + "/" + relative
        }
        return nil
    }
}
