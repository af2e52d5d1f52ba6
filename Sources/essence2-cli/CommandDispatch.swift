import Essence2Runtime

import Glibc

/// Chooses the subcommand and turns errors into a message on standard error and an exit status.
enum CommandDispatch {
    static func run(_ arguments: [String]) -> Int32 {
        guard let command = arguments.first else {
            Console.error(HelpText.main + "\n")
            return ExitStatus.usage
        }
        let rest = Array(arguments.dropFirst())
        do throws(CLIError) {
            switch command {
            case "render": try RenderCommand.run(rest)
            case "audio": try AudioCommand.run(rest)
            case "play": try PlayCommand.run(rest)
            case "bench": try BenchCommand.run(rest)
            case "avatar": return AvatarCommand.run(rest)
            case "engine": try EngineCommand.run(rest)
            case "-h", "--help", "help":
                if rest.first == "avatar" { return AvatarCommand.run(["--help"]) }
                print(rest.first.flatMap(HelpText.forCommand) ?? HelpText.main)
            case "-V", "--version", "version":
                print("essence2 \(LibraryVersion.string)")
            default:
                throw CLIError.usage("unknown command '\(command)' (try essence2 --help)")
            }
            return ExitStatus.success
        } catch {
            Console.error("essence2: \(error.message)\n")
            if error.status == ExitStatus.usage && !error.message.contains("--help") {
                Console.error("(see essence2 --help)\n")
            }
            return error.status
        }
    }
}
