import CSDL2Loader
import Essence2Kit
import Essence2Runtime
import Glibc

/// `essence2 play`: the avatar speaking in a window, its lips on the sound the sound card is actually playing.
enum PlayCommand {
    static func run(_ arguments: [String]) throws(CLIError) {
        let options = try PlayOptions.parse(arguments)
        if options.wantsHelp {
            print(HelpText.play)
            return
        }
        // Speech first: a bad file or a missing espeak-ng is reported before any window opens.
        var reply: [Int16] = []
        if let path = options.speechPath {
            reply = try AudioLoader.load(path: path).samples
        } else if let text = options.say {
            reply = try SpeechSynthesizer.speak(text)
        }
        let (avatarPath, avatar) = try ImxLocator.load(options.avatar)
        let sdl = try SDLSession(title: "essence2 - \(PathName.base(avatarPath))", capture: options.microphone)
        defer { sdl.close() }

        let engine = Engine(avatar: avatar)
        if let seed = options.seed { engine.setSeed(seed) }
        let kit = Essence2Engine(engine: engine, clock: SystemKitClock())
        defer { kit.shutdown() }
        try sdl.openWindow(width: kit.width, height: kit.height)
        let log = try options.logPath.map { (path) throws(CLIError) in try OutputFile(creating: path) }
        try log?.write(Array("# index audio_time played_seconds (at display)\n".utf8))

        var blank = [UInt8](repeating: 0, count: kit.width * kit.height * 3)
        while !kit.isReady { sdl.wait(milliseconds: 5) }
        if kit.idle(into: &blank) > 0 { sdl.show(blank) }
        func startReply(_ samples: [Int16]) {
            kit.interrupt()
            sdl.audio.stop()
            kit.feed(samples)
            kit.flushTail()
        }
        if !reply.isEmpty { startReply(reply) }
        if SpeechSynthesizer.isAvailable && !options.microphone { sdl.startTextInput() }
        sdl.setTitle(title(avatarPath, sdl: sdl))

        var shownFrames = 0
        Interruption.catchSignals()
        loop: while !Interruption.requested {
            for event in sdl.events() {
                switch event {
                case .quit: break loop
                case .interrupt:
                    kit.interrupt()
                    sdl.audio.stop()
                case .replay:
                    if !reply.isEmpty { startReply(reply) }
                case .say(let text):
                    do {
                        reply = try SpeechSynthesizer.speak(text)
                        startReply(reply)
                    } catch {
                        Console.error("essence2: \(error.message)\n")
                    }
                case .typing:
                    break
                }
                sdl.setTitle(title(avatarPath, sdl: sdl))
            }
            if options.microphone {
                let heard = sdl.microphone.drain()
                if !heard.isEmpty { kit.feed(heard) }
            }
            let audio = sdl.audio
            let clock: (@Sendable () -> Double?)? = options.microphone ? nil : { @Sendable in audio.secondsPlayed }
            if let frame = kit.pullFrame(audioClock: clock) {
                // The reply's sound starts on its first speech frame, as the reference does.
                if frame.audioTime == 0 && !options.microphone { audio.start(reply) }
                sdl.show(frame.bgr)
                shownFrames += 1
                if let audioTime = frame.audioTime, let log {
                    let played = audio.secondsPlayed ?? 0
                    try log.write(Array("\(frame.replyFrame) \(Formatting.fixed(audioTime, digits: 3)) \(Formatting.fixed(played, digits: 4))\n".utf8))
                }
                if frame.endsReply {
                    audio.stop()
                    if options.once { break loop }
                }
            }
            sdl.wait(milliseconds: 1)
        }
        try log?.close()
        print("essence2: played \(shownFrames) frames")
    }

    private static func title(_ avatarPath: String, sdl: SDLSession) -> String {
        let keys = "space: interrupt  r: replay  q/Esc: quit"
        guard sdl.typing else { return "essence2 - \(PathName.base(avatarPath)) - \(keys)" }
        return "essence2 - \(keys) - type, Enter to say: \(sdl.typed)_"
    }
}
