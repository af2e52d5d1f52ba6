import Essence2Runtime
import Glibc

/// `essence2 render SPEECH [--avatar A.imx] [-o out.mp4] [--mode full|head] [--seed N] [--lipsync learned|v1]
/// [--frames DIR]`.
enum RenderCommand {
    static func run(_ arguments: [String]) throws(CLIError) {
        let options = try RenderOptions.parse(arguments)
        if options.wantsHelp {
            print(HelpText.render)
            return
        }
        if let output = options.outputPath, Directory.sameFile(output, options.speechPath) {
            throw .usage("the output '\(output)' would overwrite the speech file; choose another -o")
        }
        let speech = try AudioLoader.load(path: options.speechPath)
        let (avatarPath, avatar) = try ImxLocator.load(options.avatar)
        let plan = try OutputPlan.decide(requested: options.outputPath, speechPath: options.speechPath,
                                         ffmpeg: ChildProcess.findInPath("ffmpeg"), encoders: VideoCodec.encoders)
        try checkOutputs(plan: plan, options: options)
        if let note = plan.note { Console.error("essence2: \(note)\n") }

        let engine = Engine(avatar: avatar)
        defer { engine.stop() }
        engine.setPacing(.unpaced)
        engine.setMode(options.mode)
        if let seed = options.seed { engine.setSeed(seed) }
        engine.setLipSyncModel(options.lipSync)
        let (width, height) = engine.frameSize
        let frameBytes = engine.frameBytes

        Interruption.catchSignals()
        let sink: FrameSink
        switch plan.kind {
        case .encoded(let ffmpeg, let container, let codec):
            let settings = FFmpegSink.Settings(width: width, height: height, container: container, codec: codec,
                                               preset: options.preset, audioChannels: speech.sourceChannels,
                                               framesPerSecond: avatar.cadence.framesPerSecond)
            sink = try FFmpegSink(ffmpeg: ffmpeg, settings: settings, speechPath: options.speechPath,
                                  outputPath: plan.videoPath)
        case .y4m(let audioPath):
            sink = try Y4MSink(videoPath: plan.videoPath, audioPath: audioPath, width: width, height: height,
                               audio: speech.samples, cadence: avatar.cadence)
        }
        let frameFiles: FrameFiles?
        do throws(CLIError) {
            frameFiles = try options.framesDirectory.map { (directory) throws(CLIError) in try FrameFiles(directory: directory) }
        } catch {
            sink.abandon()
            throw error
        }
        let cadence = avatar.cadence
        let expected = RenderTiming.speechFrames(forSamples: speech.samples.count, cadence: cadence)
        let progress = ProgressReport.make(total: expected, label: "render", quiet: options.quiet, cadence: cadence)
        let frame = UnsafeMutableRawBufferPointer.allocate(byteCount: frameBytes, alignment: 64)
        defer { frame.deallocate() }
        let result: OfflineRender.Result
        do throws(CLIError) {
            result = try speech.samples.withUnsafeBufferPointer { (samples) throws(CLIError) in
                try OfflineRender.run(engine: engine, samples: samples, frame: frame) { (_, index) throws(CLIError) in
                    try Interruption.check()
                    let bytes = UnsafeRawBufferPointer(rebasing: frame[0..<frameBytes])
                    do throws(CLIError) {
                        try sink.append(bgr: bytes)
                    } catch {
                        // ffmpeg gets the terminal's Ctrl-C too: then its end is no failure of its own.
                        try Interruption.check()
                        throw error
                    }
                    try frameFiles?.write(index: index, bgr: bytes, width: width, height: height)
                    progress?.update(done: index + 1)
                }
            }
            progress?.finish(done: result.frames)
            try Interruption.check()
            try sink.finish(frameCount: result.frames)
        } catch {
            progress?.clear()
            sink.abandon()
            frameFiles?.remove()
            throw error
        }
        if result.speechFrames != expected {
            Console.error("essence2: warning: \(result.speechFrames) speech frames for \(speech.samples.count) samples (expected \(expected))\n")
        }
        if result.strayIdleFrames > 0 {
            Console.error("essence2: warning: the engine handed out \(result.strayIdleFrames) idle frames inside the reply; left out of the video\n")
        }
        guard !options.quiet else { return }
        let seconds = Double(result.frames) / Double(cadence.framesPerSecond)
        let speed = RenderTiming.realTimeFactor(frames: result.frames, seconds: result.seconds, cadence: cadence)
        print("essence2: wrote \(sink.outputs.joined(separator: " and ")): \(width)x\(height), \(result.frames) frames "
              + "(\(Formatting.fixed(seconds, digits: 2)) s: \(result.speechFrames) speech, \(result.rampFrames) easing to rest), "
              + "avatar \(avatarPath), rendered and encoded at \(Formatting.fixed(speed, digits: 1))x real time")
        if let frameFiles {
            print("essence2: wrote \(result.frames) PNG frames to \(frameFiles.directory)/")
        }
    }

    /// Refuses outputs that would overwrite the speech file or land in a missing directory.
    private static func checkOutputs(plan: OutputPlan, options: RenderOptions) throws(CLIError) {
        var outputs = [plan.videoPath]
        if case .y4m(let audioPath) = plan.kind { outputs.append(audioPath) }
        for output in outputs {
            if Directory.sameFile(output, options.speechPath) {
                let role = output == plan.videoPath ? "" : " (the audio written beside \(plan.videoPath))"
                throw .usage("the output '\(output)'\(role) would overwrite the speech file; choose another -o")
            }
            if FileCheck.isDirectory(output) {
                throw .usage("the output '\(output)' is a directory")
            }
            let directory = PathName.directory(output)
            if !FileCheck.isDirectory(directory) {
                throw CLIError("cannot write '\(output)': directory '\(directory)' does not exist")
            }
            if access(directory, W_OK) != 0 {
                throw CLIError("cannot write '\(output)': \(String(cString: strerror(errno)))")
            }
        }
    }
}
