import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import Essence2Runtime
@testable import Essence2Vision
@testable import Essence2Authoring

/// The engine through its public Swift interface: replies, pacing on virtual time, reset, the ring.
@Suite(.serialized) struct EngineTests {
    static let ms: Int64 = 1_000_000

    /// A vowel-like test signal: harmonics of 140 Hz, with `gaps` silent stretches.
    static func speech(seconds: Double, amplitude: Double = 9000, rate: Int = 16_000) -> [Int16] {
        let n = Int(seconds * Double(rate))
        return (0..<n).map { i in
            let t = Double(i) / Double(rate)
            var v = 0.0
            for h in 1...8 { v += sin(2 * .pi * 140 * Double(h) * t) / Double(h) }
            let envelope = 0.55 + 0.45 * sin(2 * .pi * 3 * t)
            return Int16(max(-32767, min(32767, v * amplitude * envelope * 0.5)))
        }
    }

    func push(_ engine: Engine, _ samples: [Int16]) -> Bool {
        samples.withUnsafeBufferPointer { engine.pushAudio($0) }
    }

    /// Pulls one frame, waiting (real time) for the render thread; nil when none comes within `timeout` ms.
    func pullWaiting(_ engine: Engine, into buffer: UnsafeMutableRawBufferPointer, timeout: Int = 3000) -> FrameKind? {
        for _ in 0..<timeout {
            if let kind = engine.pullFrame(into: buffer) { return kind }
            usleep(1000)
        }
        return nil
    }

    /// Realtime on virtual time: pulls idle frames, 40 ms apart, until the reply's first speech frame.
    func pullFirstSpeechFrame(_ engine: Engine, clock: ManualClock, into buffer: UnsafeMutableRawBufferPointer)
        -> FrameKind?
    {
        var kind = pullWaiting(engine, into: buffer)
        while kind == .idle {
            clock.advance(by: 40 * Self.ms)
            kind = pullWaiting(engine, into: buffer)
        }
        return kind
    }

    /// Unpaced: pulls until an idle frame follows the reply; returns the kinds.
    func drainReply(_ engine: Engine, buffer: UnsafeMutableRawBufferPointer, frames: inout [[UInt8]]) -> [FrameKind] {
        var kinds: [FrameKind] = []
        while kinds.count < 2000, let kind = pullWaiting(engine, into: buffer) {
            kinds.append(kind)
            frames.append(Array(buffer))
            if kind == .idle, kinds.contains(.speech) { break }
        }
        return kinds
    }

    func withFrameBuffer<R>(_ engine: Engine, _ body: (UnsafeMutableRawBufferPointer) -> R) -> R {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: engine.frameBytes, alignment: 16)
        defer { buffer.deallocate() }
        return body(buffer)
    }

    @Test func unpacedSpeechOfNSamplesYieldsCeilNOver640SpeechFramesThenRampThenIdle() {
        let engine = Engine(avatar: TestAvatar.grace)
        engine.setPacing(.unpaced)
        let audio = Self.speech(seconds: 1.3)
        let n = audio.count + 123
        #expect(push(engine, audio + Array(repeating: 0, count: 123)))
        engine.endUtterance()
        var frames: [[UInt8]] = []
        let kinds = withFrameBuffer(engine) { drainReply(engine, buffer: $0, frames: &frames) }
        let speech = kinds.filter { $0 == .speech }.count
        #expect(speech == (n + 639) / 640)
        #expect(kinds.first == .speech)
        #expect(kinds.last == .idle)
        #expect(Array(kinds.drop { $0 == .speech }.dropLast()) == Array(repeating: .ramp, count: EngineState.rampFrames))
        #expect(engine.replyCounts == (1, 1))
        #expect(engine.pulledSpeechFrames == Int64(speech))
    }

    @Test func unpacedOutputIsByteIdenticalForSameAvatarAudioAndSeed() {
        func render() -> [[UInt8]] {
            let engine = Engine(avatar: TestAvatar.grace)
            engine.setPacing(.unpaced)
            engine.setSeed(42)
            _ = push(engine, Self.speech(seconds: 0.8))
            engine.endUtterance()
            var frames: [[UInt8]] = []
            _ = withFrameBuffer(engine) { drainReply(engine, buffer: $0, frames: &frames) }
            return frames
        }
        let a = render()
        let b = render()
        #expect(a.count > 20)
        #expect(a == b)
    }

    @Test func ringFullRefusesTheWholePushAndQueuesNothing() {
        let engine = Engine(avatar: TestAvatar.grace)
        engine.setPacing(.unpaced)
        let ring = EngineState.ringCapacity
        #expect(ring >= 160_000)
        #expect(push(engine, Array(repeating: 100, count: ring)))
        usleep(200_000)  // the render thread plans its few frames ahead, then waits for pulls
        let before = engine.bufferedSamples
        #expect(before >= ring - 640 * 4)
        #expect(!push(engine, Array(repeating: 100, count: ring - before + 1)))
        #expect(engine.bufferedSamples == before)
        #expect(push(engine, Array(repeating: 100, count: ring - before)))
    }

    @Test func firstSpeechFrameNeedsAtMost200msOfAudio() {
        let engine = Engine(avatar: TestAvatar.grace)
        engine.setPacing(.unpaced)
        var pushed = 0
        var first: FrameKind?
        withFrameBuffer(engine) { buffer in
            while pushed < 16_000, first != .speech {
                _ = push(engine, Array(Self.speech(seconds: 0.02)))
                pushed += 320
                for _ in 0..<200 {
                    first = engine.pullFrame(into: buffer)
                    if first == .speech { break }
                    usleep(500)
                }
            }
        }
        #expect(first == .speech)
        #expect(pushed <= 3_200)
    }

    @Test func realtimeHandsOutAtMost25FramesPerVirtualSecondToATightLoop() {
        let clock = ManualClock()
        let engine = Engine(avatar: TestAvatar.grace, clock: clock)
        _ = push(engine, Self.speech(seconds: 3))
        var count = 0
        withFrameBuffer(engine) { buffer in
            _ = pullWaiting(engine, into: buffer)  // warm-up: the first frame
            count = 1
            for _ in 0..<2000 {  // 2 virtual seconds in 1 ms steps
                clock.advance(by: Self.ms)
                if engine.pullFrame(into: buffer) != nil { count += 1 }
                usleep(50)
            }
        }
        #expect(count <= 51)
        #expect(count >= 40)
    }

    @Test func endUtteranceEndsTheReplyAtOnceWhileSilenceWaits600ms() {
        func speechFrames(end: Bool) -> Int {
            let clock = ManualClock()
            let engine = Engine(avatar: TestAvatar.grace, clock: clock)
            _ = push(engine, Self.speech(seconds: 0.4))  // 10 frames of audio
            if end { engine.endUtterance() }
            var kinds: [FrameKind] = []
            withFrameBuffer(engine) { buffer in
                while kinds.count < 100 {
                    guard let kind = pullWaiting(engine, into: buffer, timeout: 2000) else { break }
                    if kind == .idle, kinds.isEmpty { clock.advance(by: 40 * Self.ms); continue }
                    kinds.append(kind)
                    clock.advance(by: 40 * Self.ms)
                    if kind == .idle { break }
                }
            }
            #expect(kinds.last == .idle)
            #expect(kinds.filter { $0 == .ramp }.count == EngineState.rampFrames)
            return kinds.filter { $0 == .speech }.count
        }
        #expect(speechFrames(end: true) == 10)
        // Without end_utterance the face holds the voice's silence until 0.6 s after the last audio.
        let held = speechFrames(end: false)
        #expect(held >= 13 && held <= 17)
    }

    @Test func resetMidReplyEasesToRestFromTheLastFrameAndEndsTheReplyOnce() {
        let engine = Engine(avatar: TestAvatar.grace)
        engine.setPacing(.unpaced)
        _ = push(engine, Self.speech(seconds: 2))
        engine.endUtterance()
        var kinds: [FrameKind] = []
        var lastIndex = -1
        withFrameBuffer(engine) { buffer in
            while kinds.count < 10, let kind = pullWaiting(engine, into: buffer) { kinds.append(kind) }
            lastIndex = engine.lastFrameIndex
            engine.reset()
            while let kind = pullWaiting(engine, into: buffer) {
                kinds.append(kind)
                if kinds.count == 11 { #expect(engine.lastFrameIndex == lastIndex + 1) }
                if kind == .idle { break }
            }
        }
        #expect(Array(kinds.prefix(10)) == Array(repeating: .speech, count: 10))
        #expect(Array(kinds.dropFirst(10)) == Array(repeating: .ramp, count: EngineState.rampFrames) + [.idle])
        #expect(engine.replyCounts == (1, 1))
    }

    @Test func resetWhileIdleIsNothing() {
        let engine = Engine(avatar: TestAvatar.grace)
        engine.setPacing(.unpaced)
        withFrameBuffer(engine) { buffer in
            #expect(pullWaiting(engine, into: buffer) == .idle)
            engine.reset()
            #expect(pullWaiting(engine, into: buffer) == .idle)
        }
        #expect(engine.replyCounts == (0, 0))
    }

    @Test func playoutPositionSkipsFramesWhoseAudioHasPlayed() {
        let clock = ManualClock()
        let engine = Engine(avatar: TestAvatar.grace, clock: clock)
        _ = push(engine, Self.speech(seconds: 2))
        engine.endUtterance()
        withFrameBuffer(engine) { buffer in
            let kind = pullFirstSpeechFrame(engine, clock: clock, into: buffer)
            #expect(kind == .speech)
            #expect(engine.lastFrameIndex == 0)
            engine.setPlayoutPosition(640 * 6)
            clock.advance(by: 40 * Self.ms)
            #expect(pullWaiting(engine, into: buffer) == .speech)
        }
        #expect(engine.lastFrameIndex >= 6)
        #expect(engine.skippedFrames >= 5)
    }

    /// An engine in audio-clock pacing on virtual time with a 3 s reply whose first speech frame was taken.
    func audioClockEngine(_ body: (Engine, ManualClock, UnsafeMutableRawBufferPointer) -> Void) -> Engine {
        let clock = ManualClock()
        let engine = Engine(avatar: TestAvatar.grace, clock: clock)
        engine.setPacing(.audioClock)
        _ = push(engine, Self.speech(seconds: 3))
        engine.endUtterance()
        withFrameBuffer(engine) { buffer in
            #expect(pullFirstSpeechFrame(engine, clock: clock, into: buffer) == .speech)
            #expect(engine.lastFrameIndex == 0)
            body(engine, clock, buffer)
        }
        return engine
    }

    @Test func audioClockPacingHoldsEachSpeechFrameUntilItsAudioIsHeardHoweverLateTheWallClock() {
        let used = audioClockEngine { engine, clock, buffer in
            // The sound card runs far behind the wall clock: 400 ms pass, 100 samples are heard.
            clock.advance(by: 400 * Self.ms)
            engine.setPlayoutPosition(100)
            #expect(engine.pullFrame(into: buffer) == nil)
            // Frame 1 goes once its first sample is (within 10 ms) about to be heard, and no frame was skipped.
            engine.setPlayoutPosition(640 - 160)
            #expect(pullWaiting(engine, into: buffer) == .speech)
            #expect(engine.lastFrameIndex == 1)
            #expect(engine.pullFrame(into: buffer) == nil)
        }
        #expect(used.skippedFrames == 0)
    }

    @Test func audioClockPacingSkipsOnlyFramesWhoseAudioHasWhollyPlayed() {
        let used = audioClockEngine { engine, clock, buffer in
            clock.advance(by: 40 * Self.ms)
            engine.setPlayoutPosition(640 * 5 + 1)  // frames 1 to 4 have played; frame 5 is being heard
            #expect(pullWaiting(engine, into: buffer) == .speech)
            #expect(engine.lastFrameIndex == 5)
        }
        #expect(used.skippedFrames == 4)
    }

    @Test func lateFramesAreSkippedSoTheReplyStaysOnItsAudio() {
        let clock = ManualClock()
        let engine = Engine(avatar: TestAvatar.grace, clock: clock)
        _ = push(engine, Self.speech(seconds: 3))
        engine.endUtterance()
        withFrameBuffer(engine) { buffer in
            #expect(pullFirstSpeechFrame(engine, clock: clock, into: buffer) == .speech)
            clock.advance(by: 400 * Self.ms)  // the host stalls for 10 frame periods
            #expect(pullWaiting(engine, into: buffer) == .speech)
        }
        #expect(engine.lastFrameIndex == 10)
        #expect(engine.skippedFrames == 9)
    }

    @Test func headModeFramesAreSquareAndFullModeFramesHaveThePortraitSize() {
        let engine = Engine(avatar: TestAvatar.grace)
        engine.setPacing(.unpaced)
        #expect(engine.frameSize == (TestAvatar.grace.width, TestAvatar.grace.height))
        engine.setMode(.head)
        let size = engine.frameSize
        #expect(size.width == size.height)
        withFrameBuffer(engine) { buffer in
            #expect(buffer.count == size.width * size.height * 3)
            #expect(pullWaiting(engine, into: buffer) == .idle)
        }
    }

    @Test func lipSyncModelAppliesFromTheNextReplyWhileARunningReplyKeepsItsOwn() {
        let engine = Engine(avatar: TestAvatar.grace)
        engine.setPacing(.unpaced)
        func newestReplyModel() -> LipSyncModel? { engine.core.state.withLock { $0.replies.last?.lipSync.model } }
        #expect(engine.lipSyncModel == .learned)
        engine.setLipSyncModel(.v1)
        #expect(engine.lipSyncModel == .v1)
        #expect(push(engine, Self.speech(seconds: 0.6)))
        engine.setLipSyncModel(.learned)
        #expect(engine.lipSyncModel == .learned)
        #expect(newestReplyModel() == .v1)
        #expect(push(engine, Self.speech(seconds: 0.2)))  // more audio of the same reply
        #expect(newestReplyModel() == .v1)
        engine.endUtterance()
        var frames: [[UInt8]] = []
        let kinds = withFrameBuffer(engine) { drainReply(engine, buffer: $0, frames: &frames) }
        #expect(kinds.filter { $0 == .speech }.count == (16_000 * 8 / 10 + 639) / 640)
        #expect(push(engine, Self.speech(seconds: 0.4)))
        #expect(newestReplyModel() == .learned)
    }

    @Test func learnedAndV1ModelsMoveTheMouthDifferentlyForTheSameAudio() {
        func render(_ model: LipSyncModel) -> [[UInt8]] {
            let engine = Engine(avatar: TestAvatar.grace)
            engine.setPacing(.unpaced)
            engine.setSeed(7)
            engine.setLipSyncModel(model)
            _ = push(engine, Self.speech(seconds: 1.2))
            engine.endUtterance()
            var frames: [[UInt8]] = []
            _ = withFrameBuffer(engine) { drainReply(engine, buffer: $0, frames: &frames) }
            return frames
        }
        let learned = render(.learned), v1 = render(.v1)
        #expect(learned.count == v1.count)
        #expect(learned == render(.learned))
        #expect(zip(learned, v1).contains { $0 != $1 })
    }

    @Test func pullIntoTooSmallBufferIsRefused() {
        let engine = Engine(avatar: TestAvatar.grace)
        engine.setPacing(.unpaced)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: engine.frameBytes - 1, alignment: 16)
        defer { buffer.deallocate() }
        #expect(engine.take(into: buffer) == .bufferTooSmall)
    }
}
