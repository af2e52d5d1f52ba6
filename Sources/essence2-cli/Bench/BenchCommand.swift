import Essence2Runtime
import FoundationEssentials
import Glibc

/// `essence2 bench`: runs each avatar size and engine count in its own process (so that each peak memory
/// figure is that configuration's own) and prints one table of medians.
enum BenchCommand {
    /// The large canvas the avatar is placed on for the second column.
    static let largeCanvas = "1080x1920"

    static func run(_ arguments: [String]) throws(CLIError) {
        let options = try BenchOptions.parse(arguments)
        if options.wantsHelp {
            print(HelpText.bench)
            return
        }
        if let size = options.childSize {
            let run = try BenchChild.run(options: options, size: size)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            guard let data = try? encoder.encode(run) else { throw CLIError("cannot encode the bench figures") }
            print(String(decoding: data, as: UTF8.self))
            return
        }
        let (avatarPath, avatar) = try ImxLocator.load(options.avatar)
        let speech = try BenchChild.speech(options: options)
        if let live = options.live {
            let result = try BenchLive.run(avatar: avatar, engines: live, seconds: options.liveSeconds, speech: speech.samples)
            let copy = BenchMeasure.frameCopySeconds(bytes: avatar.width * avatar.height * 3)
            print("live: \(result.engines) engine\(result.engines == 1 ? "" : "s") at \(avatar.width)x\(avatar.height) in realtime pacing for "
                  + "\(Formatting.fixed(result.seconds, digits: 0)) s (\(avatarPath)): \(result.framesPerEngine.lowerBound)"
                  + "...\(result.framesPerEngine.upperBound) frames each, \(result.skipped) skipped, \(result.reanchored) re-anchored, "
                  + "CPU \(Formatting.fixed(result.cpuPercent, digits: 0))% (frame copy floor \(Formatting.fixed(copy * 1e6, digits: 0)) us)")
            return
        }
        guard let executable = ChildProcess.ownExecutable() else { throw CLIError("cannot find this program's executable") }
        var runs: [BenchRun] = []
        for size in options.nativeOnly ? ["native"] : ["native", largeCanvas] {
            for engines in [1, 4] {
                var argv = [executable, "bench", "--child", size, "--engines", String(engines),
                            "--avatar", avatarPath, "--reps", String(options.repetitions)]
                argv += speech.path.map { ["--speech", $0] } ?? ["--synthetic"]
                Console.error("bench: \(size == "native" ? "avatar at its own size" : size), \(engines) engine\(engines == 1 ? "" : "s")...")
                let started = Clock.now()
                let (status, output) = try ChildProcess.capture(argv)
                guard status == 0 else {
                    Console.error("\n")
                    throw CLIError("the bench run for \(size) with \(engines) engine(s) failed (exit status \(status))")
                }
                guard let run = try? JSONDecoder().decode(BenchRun.self, from: Data(output)) else {
                    Console.error("\n")
                    throw CLIError("the bench run for \(size) with \(engines) engine(s) printed no figures")
                }
                Console.error(" \(Formatting.fixed(Clock.now() - started, digits: 1)) s\n")
                runs.append(run)
            }
        }
        let report = BenchReport(version: "\(LibraryVersion.string)", avatar: avatarPath, speech: speech.path ?? "synthetic",
                                 speechSeconds: Double(speech.samples.count) / Double(SpeechAudio.sampleRate),
                                 cpus: sysconf(Int32(_SC_NPROCESSORS_ONLN)), repetitions: options.repetitions, runs: runs,
                                 lipSync: BenchLipSync.measure(speech.samples, repetitions: options.repetitions),
                                 renderAlone: (try? ImxLocator.load(options.avatar).1).map {
                                     BenchRenderAlone.measure($0, repetitions: options.repetitions)
                                 })
        if options.json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            guard let data = try? encoder.encode(report) else { throw CLIError("cannot encode the bench figures") }
            print(String(decoding: data, as: UTF8.self))
        } else {
            print(report.table())
        }
    }
}
