import Essence2Runtime
import Essence2Vision
import Essence2Authoring
import Glibc

/// One bench process: one avatar size, one or more engines, every figure measured `repetitions` times.
enum BenchChild {
    /// Seconds of synthetic speech when no speech file is used.
    static let syntheticSeconds = 8.0
    /// Wall seconds the speech repetitions of one bench process should take at most (the speech is
    /// shortened to fit on slow machines, never below `minimumSpeechSeconds`), so that `make bench` stays short.
    static let speechBudgetSeconds = 24.0
    static let minimumSpeechSeconds = 2.0
    /// Frames allowed for the face easing to rest after a reply when sizing the speech (a bound, not exact).
    static let rampAllowanceFrames = 8

    /// The speech cut to what `repetitions` renders by `engines` engines fit in the budget, given the
    /// measured seconds per frame of one engine alone.
    static func fitted(_ samples: [Int16], secondsPerFrame: Double, engines: Int, repetitions: Int,
                       cadence: FrameCadence = .essence2) -> [Int16] {
        let parallelism = Double(min(engines, max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
        let framesPerRep = speechBudgetSeconds / Double(repetitions) / max(secondsPerFrame * Double(engines) / parallelism, 1e-6)
        let keep = max(Int(minimumSpeechSeconds * Double(SpeechAudio.sampleRate)),
                       (Int(framesPerRep) - rampAllowanceFrames) * cadence.samplesPerFrame)
        return keep < samples.count ? Array(samples[0..<keep]) : samples
    }

    /// The speech to render: `--speech FILE`, else examples/audio/demo.wav when present, else synthetic.
    static func speech(options: BenchOptions) throws(CLIError) -> (path: String?, samples: [Int16]) {
        if !options.synthetic {
            if let path = options.speech { return (path, try AudioLoader.load(path: path).samples) }
            if FileCheck.isFile(BenchOptions.defaultSpeech) {
                return (BenchOptions.defaultSpeech, try AudioLoader.load(path: BenchOptions.defaultSpeech).samples)
            }
        }
        return (nil, SyntheticSpeech.make(seconds: syntheticSeconds))
    }

    static func run(options: BenchOptions, size: String) throws(CLIError) -> BenchRun {
        var (_, avatar) = try ImxLocator.load(options.avatar)
        if let canvas = BenchOptions.parseSize(size), avatar.kind == .photoreal {
            avatar = avatar.placed(onCanvasWidth: canvas.width, height: canvas.height)
        }
        let fullSpeech = try speech(options: options).samples
        let baseline = MemoryStatus.residentBytes() ?? 0
        let reps = options.repetitions
        let engineCount = options.childEngines
        let engines = (0..<engineCount).map { _ in Engine(avatar: avatar) }
        defer { for engine in engines { engine.stop() } }
        for engine in engines { engine.setPacing(.unpaced) }
        let (width, height) = engines[0].frameSize

        // Warm up every engine, and time idle frames to size the idle runs (about a second each).
        var warmSeconds = 0.0
        for engine in engines {
            let frame = BenchMeasure.frameBuffer(engine)
            defer { frame.deallocate() }
            _ = try BenchMeasure.idle(engine, frames: 2, into: frame)
            warmSeconds = try BenchMeasure.idle(engine, frames: 3, into: frame) / 3
        }
        let idleFrames = max(25, min(250, Int(1.0 / max(warmSeconds, 1e-4))))
        let cadence = avatar.cadence
        let samples = fitted(fullSpeech, secondsPerFrame: warmSeconds, engines: engineCount, repetitions: reps,
                             cadence: cadence)

        var speechAll: [Double] = [], speechEach: [Double] = [], idleAll: [Double] = [], idleEach: [Double] = []
        var firstSpeech: [Double] = []
        var replyFrames = 0
        for _ in 0..<reps {
            // Speech: every engine renders the whole reply.
            let frameCounts = ThreadResults(count: engineCount)
            let (wall, seconds) = try BenchMeasure.parallel(engineCount) { (index) throws(CLIError) in
                let frame = BenchMeasure.frameBuffer(engines[index])
                defer { frame.deallocate() }
                let result = try BenchMeasure.speech(engines[index], samples: samples, into: frame)
                frameCounts.set(index, .success(Double(result.frames)))
                return result.seconds
            }
            let frames = try frameCounts.values()
            replyFrames = Int(frames[0])
            speechAll.append(RenderTiming.realTimeFactor(frames: Int(frames.reduce(0, +)), seconds: wall, cadence: cadence))
            speechEach.append(zip(frames, seconds).map {
                RenderTiming.realTimeFactor(frames: Int($0), seconds: $1, cadence: cadence)
            }.reduce(0, +) / Double(engineCount))

            let (idleWall, idleSeconds) = try BenchMeasure.parallel(engineCount) { (index) throws(CLIError) in
                let frame = BenchMeasure.frameBuffer(engines[index])
                defer { frame.deallocate() }
                return try BenchMeasure.idle(engines[index], frames: idleFrames, into: frame)
            }
            idleAll.append(RenderTiming.realTimeFactor(frames: idleFrames * engineCount, seconds: idleWall, cadence: cadence))
            idleEach.append(idleSeconds.map {
                RenderTiming.realTimeFactor(frames: idleFrames, seconds: $0, cadence: cadence)
            }.reduce(0, +) / Double(engineCount))
        }

        // The engines' own peak: taken before the latency runs (which start an engine of their own) and the frame
        // copy measurement (two frames of its own).
        let peak = MemoryStatus.peakResidentBytes() ?? 0
        var latency: BenchLatency?
        var copySeconds: Double?
        if engineCount == 1 {
            let engine = engines[0]
            let frame = BenchMeasure.frameBuffer(engine)
            defer { frame.deallocate() }
            // The first second of speech is enough to see the first speech frame.
            let opening = Array(samples.prefix(SpeechAudio.sampleRate))
            var samplesNeeded: [Double] = [], realtime: [Double] = []
            for _ in 0..<reps {
                firstSpeech.append(try BenchMeasure.speech(engine, samples: opening, into: frame).firstSpeechSeconds)
                samplesNeeded.append(Double(try BenchMeasure.samplesBeforeFirstSpeech(
                    engine, samples: opening, wait: 0.01 + 3 * warmSeconds, into: frame)))
                realtime.append(try BenchMeasure.realtimeLatency(avatar: avatar, samples: opening))
            }
            latency = BenchLatency(unpacedSeconds: Statistics.median(firstSpeech),
                                   unpacedSamples: Int(Statistics.median(samplesNeeded)),
                                   realtimeSeconds: Statistics.median(realtime))
            copySeconds = BenchMeasure.frameCopySeconds(bytes: engine.frameBytes)
        }
        return BenchRun(width: width, height: height, engines: engineCount, repetitions: reps, replyFrames: replyFrames,
                        speechRealTime: Statistics.median(speechAll), speechRealTimePerEngine: Statistics.median(speechEach),
                        idleRealTime: Statistics.median(idleAll), idleRealTimePerEngine: Statistics.median(idleEach),
                        baselineBytes: baseline, peakBytes: peak,
                        latency: latency, frameCopySeconds: copySeconds)
    }
}
