// RenderFrames: the reference's Essence 2 example, adapted to Linux: an avatar file instead of
// Essence2Download, and an Essence2Playout instead of AVAudioPlayerNode.
//
//   swift run RenderFrames SPEECH.wav AVATAR.imx OUTDIR     writes every frame as OUTDIR/frame_00000.ppm
//   swift run RenderFrames SPEECH.wav AVATAR.imx --live     realtime, following a player's clock
import Essence2Kit
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    print("usage: RenderFrames SPEECH.wav AVATAR.imx OUTDIR | --live")
    exit(2)
}
let (speechPath, avatarPath, target) = (arguments[1], arguments[2], arguments[3])

do {
    let speech = try WAVReader.read(path: speechPath)
    let engine = try await Essence2Engine.create(identity: URL(fileURLWithPath: avatarPath))
    defer { engine.shutdown() }

    if target == "--live" {
        // Live: the speech starts playing on its first speech frame, and the frames follow the player.
        let player = ClockPlayout()
        engine.feed(speech.samples, sampleRate: speech.rate)
        engine.flushTail()
        var shown = 0
        for await frame in engine.frames(following: player) {
            if frame.audioTime == 0 { player.play() }   // the reply's first speech frame: start its audio
            shown += 1
            if let audioTime = frame.audioTime, shown % 25 == 0, let played = player.secondsPlayed {
                print("frame \(frame.index): audio \(audioTime) s, played \(played) s")
            }
            if frame.endsReply { break }
        }
        print("shown \(shown) frames live, \(engine.droppedFrames) dropped to stay on the audio")
    } else {
        // A file: as fast as the frames render, each written as a PPM image.
        engine.pacing = .unpaced
        engine.feed(speech.samples, sampleRate: speech.rate)
        engine.flushTail()
        var written = 0
        for await frame in engine.frames() {
            try PPMWriter.write(frame, to: "\(target)/frame_\(fiveDigits(written)).ppm")
            written += 1
            if frame.endsReply { break }
        }
        print("wrote \(written) frames (\(engine.width)x\(engine.height)) to \(target)/")
    }
} catch {
    print("RenderFrames: \(error)")
    exit(1)
}
