import Essence2Runtime
import Essence2Vision
import Essence2Authoring
import FoundationEssentials

/// Finds the directory of the face models `essence2 avatar build` and `essence2 avatar detect` run.
enum ModelLocator {
    /// The directories searched, in order: `--models DIR`, `$ESSENCE2_MODELS`, `models/` in the current directory,
    /// `models/` beside the directory of the executable (a build in the source tree), and the install's
    /// `share/essence2/models`.
    static func searchDirectories(given: String?) -> [String] {
        if let given { return [given] }
        var directories: [String] = []
        if let fromEnvironment = ProcessInfo.processInfo.environment["ESSENCE2_MODELS"], !fromEnvironment.isEmpty {
            directories.append(fromEnvironment)
        }
        directories.append("models")
        if let executable = ChildProcess.ownExecutable() {
            let prefix = PathName.directory(PathName.directory(executable))
            let base = prefix == "/" ? "" : prefix
            directories.append("\(base)/models")
            directories.append("\(base)/share/essence2/models")
        }
        return directories
    }

    /// The first search directory holding the detector and the landmark model (they are read and checked
    /// against their sha256 by `FaceAnalyzer(modelDirectory:)`).
    static func directory(given: String?) throws(CLIError) -> String {
        let directories = searchDirectories(given: given)
        let needed = [FaceModelFile.detector, .landmarks]
        if let found = directories.first(where: { directory in
            needed.allSatisfy { FileCheck.isFile("\(directory)/\($0.fileName)") }
        }) {
            return found
        }
        throw CLIError("face models \(needed.map(\.fileName).joined(separator: " and ")) not found "
            + "(looked in \(directories.joined(separator: ", "))); pass --models DIR or set ESSENCE2_MODELS")
    }
}
