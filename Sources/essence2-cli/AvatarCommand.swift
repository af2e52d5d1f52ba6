import Essence2Core
import Foundation

/// `essence2 avatar build …` and `essence2 avatar inspect …`. `run` takes the arguments after "avatar",
/// prints results to stdout and usage or errors to stderr, and returns the exit status (as `ExitStatus`):
/// 0 success, 1 build failure (bad portrait or JSON, cannot write), 2 usage error, 4 `inspect` found the
/// file missing or invalid.
enum AvatarCommand {
    static let usage = """
        usage: essence2 avatar build --portrait IMAGE --landmarks LANDMARKS.json [--mesh MESH.json] -o AVATAR.imx
                                     [--name NAME] [--seed HEX|DECIMAL] [--source TEXT] [--licence TEXT]
                                     [--canvas WIDTHxHEIGHT]
               essence2 avatar inspect AVATAR.imx

          build    makes an .imx avatar from a JPEG or PNG portrait and its landmark JSON (and mesh JSON;
                   without --mesh a coarse mesh is fitted to the landmarks). --canvas places the portrait,
                   scaled to fit and centred, on a canvas of that size. --source and --licence are recorded
                   in the manifest.
          inspect  prints the header, sections (sizes, sha256 ok/FAIL), manifest and content of a file and
                   exits 0 when it is valid, 4 when it is missing or invalid.

        """

    static func run(_ args: [String]) -> Int32 {
        guard let command = args.first else {
            printError(usage)
            return 2
        }
        let rest = Array(args.dropFirst())
        switch command {
        case "build": return build(rest)
        case "inspect": return inspect(rest)
        case "-h", "--help", "help":
            print(usage, terminator: "")
            return 0
        default:
            printError("essence2 avatar: unknown subcommand '\(command)'\n" + usage)
            return 2
        }
    }

    static func inspect(_ args: [String]) -> Int32 {
        guard args.count == 1, let path = args.first, !path.hasPrefix("-") else {
            printError("essence2 avatar inspect: expects exactly one file\n" + usage)
            return 2
        }
        let report = AvatarFile.describe(path: path)
        print(report, terminator: "")
        do {
            _ = try AvatarFile.read(path: path)
            return 0
        } catch {
            return 4
        }
    }

    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }
}
