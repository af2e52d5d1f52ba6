import Essence2Runtime

/// What `essence2 render` was asked to do.
struct RenderOptions {
    /// The speech file: any format, rate and channel count libsndfile reads.
    var speechPath: String
    /// The avatar as given on the command line (`nil`: the default avatar).
    var avatar: String?
    /// The output path (`nil`: the speech file's name with `.mp4`, in the current directory).
    var outputPath: String?
    var mode: DisplayMode = .full
    var seed: UInt64?
    /// The audio-to-articulation mapping.
    var lipSync: LipSyncModel = .learned
    /// Directory to also write every frame into as PNG.
    var framesDirectory: String?
    /// x264's preset (speed against file size); `veryfast` keeps the encoder from outweighing the engine.
    var preset = "veryfast"
    /// No progress and no closing summary: only errors are printed.
    var quiet = false
    /// `true` when the user asked for help instead.
    var wantsHelp = false

    /// x264's presets, fastest first.
    static let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow"]

    static let scanner = ArgumentScanner(options: [
        .init(name: "--avatar", aliases: ["-a"], takesValue: true),
        .init(name: "--output", aliases: ["-o"], takesValue: true),
        .init(name: "--mode", aliases: ["-m"], takesValue: true),
        .init(name: "--seed", takesValue: true),
        .init(name: "--lipsync", takesValue: true),
        .init(name: "--frames", takesValue: true),
        .init(name: "--preset", takesValue: true),
        .init(name: "--quiet", aliases: ["-q"], takesValue: false),
        .init(name: "--help", aliases: ["-h"], takesValue: false),
    ])

    /// Reads the arguments that follow `render`.
    static func parse(_ arguments: [String]) throws(CLIError) -> RenderOptions {
        let scanned = try scanner.scan(arguments)
        if scanned.has("--help") {
            var options = RenderOptions(speechPath: "")
            options.wantsHelp = true
            return options
        }
        guard let speech = scanned.positionals.first else {
            throw .usage("render needs a speech file: essence2 render SPEECH [--avatar A.imx] [-o out.mp4]")
        }
        guard scanned.positionals.count == 1 else {
            throw .usage("render takes one speech file, got \(scanned.positionals.count): \(scanned.positionals.joined(separator: " "))")
        }
        var options = RenderOptions(speechPath: speech)
        options.avatar = scanned.value("--avatar")
        options.outputPath = scanned.value("--output")
        options.framesDirectory = scanned.value("--frames")
        if let mode = scanned.value("--mode") {
            options.mode = try parseMode(mode)
        }
        if let seed = scanned.value("--seed") {
            options.seed = try parseSeed(seed)
        }
        if let model = scanned.value("--lipsync") {
            options.lipSync = try parseLipSync(model)
        }
        if let preset = scanned.value("--preset") {
            guard presets.contains(preset.lowercased()) else {
                throw .usage("unknown --preset '\(preset)' (use one of \(presets.joined(separator: ", ")); faster presets make larger files)")
            }
            options.preset = preset.lowercased()
        }
        options.quiet = scanned.has("--quiet")
        return options
    }

    /// `full` or `head`.
    static func parseMode(_ text: String) throws(CLIError) -> DisplayMode {
        switch text.lowercased() {
        case "full": return .full
        case "head": return .head
        default: throw .usage("unknown mode '\(text)' (use full or head)")
        }
    }

    /// `learned` or `v1`.
    static func parseLipSync(_ text: String) throws(CLIError) -> LipSyncModel {
        switch text.lowercased() {
        case "learned": return .learned
        case "v1": return .v1
        default: throw .usage("unknown lip-sync model '\(text)' (use learned or v1)")
        }
    }

    /// A decimal or `0x` hexadecimal 64-bit unsigned number.
    static func parseSeed(_ text: String) throws(CLIError) -> UInt64 {
        let lower = text.lowercased()
        let parsed = lower.hasPrefix("0x") ? UInt64(lower.dropFirst(2), radix: 16) : UInt64(lower, radix: 10)
        guard let parsed else {
            throw .usage("bad seed '\(text)' (use a number from 0 to 18446744073709551615, or 0x hexadecimal)")
        }
        return parsed
    }
}
