import Essence2Runtime

/// `essence2 avatar get CODE [--cache DIR]`: the avatar CODE from the configured service, or from the cache,
/// and its path on standard output. The service is asked first (no background revalidation: the process ends
/// right after). Exit statuses: 0 the path printed, 1 unavailable (no service, no answer and nothing cached for
/// this secret, no such avatar, cache not writable), 2 bad command line, 4 the file sent is not the one
/// described or is of a newer format (`ExitStatus.badAvatar`), 6 refused (`ExitStatus.refused`).
extension AvatarCommand {
    static func get(_ args: [String]) -> Int32 {
        var code: String?
        var cache: String?
        var index = 0
        while index < args.count {
            let arg = args[index]
            switch arg {
            case "--cache":
                guard index + 1 < args.count, !args[index + 1].isEmpty else {
                    return usageError("get", "--cache needs a directory")
                }
                cache = args[index + 1]
                index += 2
            case "-h", "--help":
                print(usage, terminator: "")
                return ExitStatus.success
            default:
                guard !arg.hasPrefix("-"), code == nil, !arg.isEmpty else {
                    return usageError("get", arg.hasPrefix("-") ? "unknown option '\(arg)'" : "expects one CODE")
                }
                code = arg
                index += 1
            }
        }
        guard let code else { return usageError("get", "expects the avatar's CODE") }
        switch AvatarDownloads.fetch(code: code, directory: cache, background: false) {
        case .success(let path):
            print(path)
            return ExitStatus.success
        case .failure(.refused(let reason)):
            printError("essence2 avatar get: refused: \(reason)")
            return ExitStatus.refused
        case .failure(.unavailable(let reason)):
            printError("essence2 avatar get: \(reason)")
            return ExitStatus.failure
        case .failure(.mismatch(let reason)):
            printError("essence2 avatar get: \(reason)")
            return ExitStatus.badAvatar
        case .failure(.outdated(_, let reason)):
            printError("essence2 avatar get: \(reason)")
            return ExitStatus.badAvatar
        }
    }
}
