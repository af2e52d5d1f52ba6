/// What `essence2 play` was asked to do.
struct PlayOptions {
    /// Speech to play (any file libsndfile reads); nil with --say or --mic.
    var speechPath: String?
    var avatar: String?
    /// Text spoken by espeak-ng.
    var say: String?
    /// Mouth what the microphone hears.
    var microphone = false
    /// Quit once the first reply has ended.
    var once = false
    /// Log of the audio/video offset: one line per speech frame shown.
    var logPath: String?
    var seed: UInt64?
    var wantsHelp = false

    static let scanner = ArgumentScanner(options: [
        .init(name: "--avatar", aliases: ["-a"], takesValue: true),
        .init(name: "--say", takesValue: true),
        .init(name: "--mic", takesValue: false),
        .init(name: "--once", takesValue: false),
        .init(name: "--log", takesValue: true),
        .init(name: "--seed", takesValue: true),
        .init(name: "--help", aliases: ["-h"], takesValue: false),
    ])

    static func parse(_ arguments: [String]) throws(CLIError) -> PlayOptions {
        let scanned = try scanner.scan(arguments)
        var options = PlayOptions()
        options.wantsHelp = scanned.has("--help")
        if options.wantsHelp { return options }
        guard scanned.positionals.count <= 1 else {
            throw .usage("play takes one speech file, got \(scanned.positionals.count): \(scanned.positionals.joined(separator: " "))")
        }
        options.speechPath = scanned.positionals.first
        options.avatar = scanned.value("--avatar")
        options.say = scanned.value("--say")
        options.microphone = scanned.has("--mic")
        options.once = scanned.has("--once")
        options.logPath = scanned.value("--log")
        if let seed = scanned.value("--seed") { options.seed = try RenderOptions.parseSeed(seed) }
        let sources = [options.speechPath != nil, options.say != nil, options.microphone].filter { $0 }.count
        guard sources == 1 else {
            throw .usage(sources == 0
                ? "play needs something to say: a speech file, --say \"TEXT\" or --mic (essence2 play --help)"
                : "play takes one of a speech file, --say \"TEXT\" and --mic")
        }
        return options
    }
}
