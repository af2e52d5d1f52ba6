/// What `essence2 bench` was asked to do.
struct BenchOptions {
    var avatar: String?
    /// Speech file to render; nil: examples/audio/demo.wav when present, else the synthetic signal.
    var speech: String?
    var synthetic = false
    var repetitions = 3
    var json = false
    var wantsHelp = false
    /// Only the avatar at its own size (no 1080x1920 column).
    var nativeOnly = false
    /// Engines for the live (realtime) run, and its length in seconds; nil: no live run.
    var live: Int?
    var liveSeconds = 60.0
    /// Set in the child processes the bench starts: the canvas ("native" or "WxH") and the engine count.
    var childSize: String?
    var childEngines = 1

    static let defaultSpeech = "examples/audio/demo.wav"

    static let scanner = ArgumentScanner(options: [
        .init(name: "--avatar", aliases: ["-a"], takesValue: true),
        .init(name: "--speech", takesValue: true),
        .init(name: "--synthetic", takesValue: false),
        .init(name: "--reps", takesValue: true),
        .init(name: "--json", takesValue: false),
        .init(name: "--child", takesValue: true),
        .init(name: "--engines", takesValue: true),
        .init(name: "--native-only", takesValue: false),
        .init(name: "--live", takesValue: true),
        .init(name: "--seconds", takesValue: true),
        .init(name: "--help", aliases: ["-h"], takesValue: false),
    ])

    static func parse(_ arguments: [String]) throws(CLIError) -> BenchOptions {
        let scanned = try scanner.scan(arguments)
        var options = BenchOptions()
        if let extra = scanned.positionals.first { throw .usage("bench takes no arguments besides options, got '\(extra)'") }
        options.wantsHelp = scanned.has("--help")
        options.avatar = scanned.value("--avatar")
        options.speech = scanned.value("--speech")
        options.synthetic = scanned.has("--synthetic")
        options.json = scanned.has("--json")
        if let reps = scanned.value("--reps") {
            guard let value = Int(reps), (1...50).contains(value) else { throw .usage("bad --reps '\(reps)' (use 1 to 50)") }
            options.repetitions = value
        }
        options.childSize = scanned.value("--child")
        options.nativeOnly = scanned.has("--native-only")
        if let live = scanned.value("--live") {
            guard let value = Int(live), (1...64).contains(value) else { throw .usage("bad --live '\(live)' (use 1 to 64 engines)") }
            options.live = value
        }
        if let seconds = scanned.value("--seconds") {
            guard let value = Double(seconds), value >= 1, value <= 3600 else { throw .usage("bad --seconds '\(seconds)' (use 1 to 3600)") }
            options.liveSeconds = value
        }
        if let engines = scanned.value("--engines") {
            guard let value = Int(engines), (1...64).contains(value) else { throw .usage("bad --engines '\(engines)' (use 1 to 64)") }
            options.childEngines = value
        }
        if let size = options.childSize, size != "native", parseSize(size) == nil {
            throw .usage("bad --child size '\(size)' (use native or WIDTHxHEIGHT)")
        }
        return options
    }

    /// "1080x1920" -> (1080, 1920).
    static func parseSize(_ text: String) -> (width: Int, height: Int)? {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
              (16...8192).contains(width), (16...8192).contains(height) else { return nil }
        return (width, height)
    }
}
