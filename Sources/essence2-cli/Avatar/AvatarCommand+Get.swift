import Essence2Runtime
import Essence2Service

/// `essence2 avatar get CODE [--cache DIR]`: the avatar CODE from the configured service, or from the cache,
/// and its path on standard output. The service is asked first (no background revalidation: the process ends
/// right after). Exit statuses: 0 the path printed, 1 unavailable (no service, no answer and nothing cached for
/// this secret, no such avatar, cache not writable), 2 bad command line, 4 the file sent is not the one
/// described or is of a newer format (`ExitStatus.badAvatar`), 6 refused (`ExitStatus.refused`).
extension AvatarCommand {
    static let getScanner = ArgumentScanner(options: [
        .init(name: "--cache", takesValue: true), .init(name: "--help", aliases: ["-h"], takesValue: false),
    ])

    static func get(_ args: [String]) -> Int32 {
        func usageError(_ text: String) -> Int32 { AvatarCommand.usageError("get", text) }
        let scanned: ArgumentScanner.Result
        do {
            scanned = try getScanner.scan(args)
        } catch {
            return usageError(error.message)
        }
        if scanned.has("--help") {
            print(usage, terminator: "")
            return ExitStatus.success
        }
        let cache = scanned.value("--cache")
        if cache == "" { return usageError("--cache needs a directory") }
        guard scanned.positionals.count <= 1 else { return usageError("expects one CODE") }
        guard let code = scanned.positionals.first, !code.isEmpty else {
            return usageError("expects the avatar's CODE")
        }
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
