import Essence2Runtime
import Essence2Authoring

/// `essence2 engine export -o FILE.engine`: writes the shared engine container (Expression 2's
/// `sharedEngineContainer`, the C interface's `engine_path`) holding this library's lip-sync model.
/// `essence2 engine inspect FILE.engine` checks one.
enum EngineCommand {
    static func run(_ arguments: [String]) throws(CLIError) {
        guard let sub = arguments.first, sub != "-h", sub != "--help" else {
            print(HelpText.engine)
            return
        }
        let rest = Array(arguments.dropFirst())
        switch sub {
        case "export":
            var output: String?
            var i = 0
            while i < rest.count {
                switch rest[i] {
                case "-o", "--output":
                    guard i + 1 < rest.count else { throw .usage("\(rest[i]) needs a file name") }
                    output = rest[i + 1]
                    i += 2
                default:
                    throw .usage("engine export: unknown argument '\(rest[i])'")
                }
            }
            guard let output else { throw .usage("engine export: -o FILE.engine is required") }
            let weights = LipSyncWeights.shippedBytes
            let manifest = JSONWriter.write(.object([
                JSONMember("format", .string(EngineContainer.formatName)),
                JSONMember("version", .number("1")),
                JSONMember("library", .string("\(LibraryVersion.string)")),
                JSONMember("lipsync_sha256", .string(SHA256.hex(SHA256.hash(weights)))),
            ]))
            let bytes = AvatarFile.encodeContainer(
                [(AvatarFileFormat.Section.manifest, manifest), (EngineContainer.lipSyncSection, weights)], width: 1, height: 1)
            do {
                try BinaryFile.write(bytes, to: output)
                _ = try EngineContainer.read(path: output)  // what was written must read back
            } catch {
                throw CLIError("engine export: \(error)")
            }
            print("wrote \(output): shared engine container, lip-sync model \(weights.count) bytes, "
                + "sha256 \(SHA256.hex(SHA256.hash(weights)))")
        case "inspect":
            guard rest.count == 1 else { throw .usage("engine inspect: expects exactly one file") }
            do {
                let read = try EngineContainer.read(path: rest[0])
                print("\(rest[0]): valid shared engine container; lip-sync model \(read.bytes.count) bytes, sha256 \(read.weights.sha256)")
            } catch {
                throw CLIError("\(rest[0]): INVALID: \(error)", status: ExitStatus.badAvatar)
            }
        default:
            throw .usage("unknown engine command '\(sub)' (export or inspect)")
        }
    }
}
