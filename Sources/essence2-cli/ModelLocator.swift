import Essence2Core
import Foundation

/// Finds, reads and checks the face models `essence2 avatar build` and `essence2 avatar detect` run.
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

    /// The bytes of `model`, from the first search directory holding it, checked against its SHA-256.
    static func load(_ model: FaceModelFile, given: String?) throws(CLIError) -> [UInt8] {
        let directories = searchDirectories(given: given)
        for directory in directories where FileCheck.isFile("\(directory)/\(model.fileName)") {
            let path = "\(directory)/\(model.fileName)"
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            if let size = attributes?[.size] as? Int, size > FaceModelFile.maxSize {
                throw CLIError("model \(path): \(size) bytes, more than the limit of \(FaceModelFile.maxSize)")
            }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CLIError("model \(path) cannot be read")
            }
            let bytes = [UInt8](data)
            if let problem = model.problem(with: bytes) { throw CLIError("model \(path): \(problem)") }
            return bytes
        }
        throw CLIError("face model \(model.fileName) not found (looked in \(directories.joined(separator: ", "))); "
            + "pass --models DIR or set ESSENCE2_MODELS")
    }
}
