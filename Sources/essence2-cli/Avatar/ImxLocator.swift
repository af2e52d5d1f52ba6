import Essence2Runtime

/// Finds and opens the avatar a command was given (or the default one).
enum ImxLocator {
    /// The avatar used when none is given.
    static let defaultFile = "grace-hopper.imx"

    /// The directories searched for the default avatar, and for a bare avatar name: `avatars/` in the current
    /// directory, then the install's `share/essence2/avatars` next to the executable's `../share`.
    static func searchDirectories() -> [String] {
        var directories = ["avatars"]
        if let executable = ChildProcess.ownExecutable() {
            let prefix = PathName.directory(PathName.directory(executable))
            directories.append("\(prefix == "/" ? "" : prefix)/share/essence2/avatars")
        }
        return directories
    }

    /// The path of the avatar to open: `given` itself when it names a file; for a bare name (no slash)
    /// also `NAME` or `NAME.imx` in the search directories; the default avatar when `given` is nil.
    static func resolve(_ given: String?) throws(CLIError) -> String {
        if let given, FileCheck.isFile(given) { return given }
        let name = given ?? defaultFile
        if given == nil || !name.contains("/") {
            let names = PathName.fileExtension(name) == "imx" ? [name] : [name, "\(name).imx"]
            for directory in searchDirectories() {
                for candidate in names where FileCheck.isFile("\(directory)/\(candidate)") {
                    return "\(directory)/\(candidate)"
                }
            }
        }
        if let given {
            if FileCheck.isDirectory(given) {
                throw CLIError("avatar '\(given)' is a directory, not an .imx file", status: ExitStatus.badAvatar)
            }
            var looked = [given]
            if !given.contains("/") {
                let names = PathName.fileExtension(given) == "imx" ? [given] : [given, "\(given).imx"]
                looked += searchDirectories().flatMap { directory in names.map { "\(directory)/\($0)" } }
            }
            throw CLIError("avatar '\(given)' not found (looked for \(looked.joined(separator: ", "))); pass the path "
                           + "of an .imx file, or make one with 'essence2 avatar build PHOTO -o NAME.imx'",
                           status: ExitStatus.badAvatar)
        }
        let places = searchDirectories().map { "\($0)/\(defaultFile)" }.joined(separator: ", ")
        throw CLIError("default avatar not found (looked for \(places)); pass --avatar FILE.imx", status: ExitStatus.badAvatar)
    }

    /// Resolves and reads the avatar; a bad file's reason comes from the avatar reader.
    static func load(_ given: String?) throws(CLIError) -> (path: String, avatar: Avatar) {
        let path = try resolve(given)
        do {
            return (path, try AvatarFile.read(path: path))
        } catch {
            throw CLIError("bad avatar file '\(path)': \(error)", status: ExitStatus.badAvatar)
        }
    }
}
