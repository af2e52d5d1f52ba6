import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import Essence2Kit
@testable import Essence2Runtime
@testable import Essence2Authoring

/// Essence2Kit through its public API: frames, events, audio clock, interrupt, shutdown, feeding at any rate,
/// on virtual time where the pacing is what is tested.
@Suite(.serialized) struct KitStreamTests {
    static let avatarPath = TestAvatar.repositoryRoot + "/avatars/grace-hopper.imx"

    /// 16 kHz mono speech-like samples in -1...1 (harmonics of 140 Hz, loudness varying at 3 Hz).
    static func speech(seconds: Double, rate: Int = 16_000) -> [Float] {
        EngineTests.speech(seconds: seconds, rate: rate).map { Float($0) / 32768 }
    }

    /// An engine on `clock`, ready (the render thread is real: waits in real time for the first frame).
    static func engine(clock: any KitClock) async throws -> Essence2Engine {
        let avatar = TestAvatar.grace
        let made = Essence2Engine(engine: Engine(avatar: avatar, clock: clock), clock: clock)
        for _ in 0..<5_000 where !made.isReady { usleep(1_000) }
        try #require(made.isReady)
        return made
    }

    /// Moves virtual time forward in 1 ms steps for `milliseconds`, letting other tasks run in between. The
    /// engine renders in real time, so each virtual millisecond lasts about one real millisecond: slower than
    /// that, a frame could be due before the render thread has drawn it (then it is skipped as late).
    static func run(_ clock: VirtualKitClock, milliseconds: Int) async {
        for _ in 0..<milliseconds {
            clock.advance(by: 1_000_000)
            await Task.yield()
            usleep(900)
            await Task.yield()
        }
    }

    /// Collects what a stream hands out, with the virtual time of each.
    final class Collected: Sendable {
        let frames = Locked<[(frame: Essence2Frame, at: Int64)]>([])
        var count: Int { frames.withLock { $0.count } }
        var all: [(frame: Essence2Frame, at: Int64)] { frames.withLock { $0 } }
    }

    static func collect(_ stream: AsyncStream<Essence2Frame>, clock: any KitClock, into collected: Collected) -> Task<Void, Never> {
        Task {
            for await frame in stream {
                let now = clock.nanoseconds()
                collected.frames.withLock { $0.append((frame, now)) }
            }
        }
    }

    @Test func framesFromTheStreamCome25AVirtualSecondAndKeepComingWhileIdle() async throws {
        let clock = VirtualKitClock()
        let engine = try await Self.engine(clock: clock)
        let collected = Collected()
        let consumer = Self.collect(engine.frames(), clock: clock, into: collected)
        await Self.run(clock, milliseconds: 200)  // settle
        let before = collected.count
        await Self.run(clock, milliseconds: 2_000)
        let counted = collected.count - before
        #expect((49...51).contains(counted), "\(counted) frames in 2 virtual seconds")
        #expect(collected.all.allSatisfy { !$0.frame.isSpeech && $0.frame.audioTime == nil && $0.frame.replyFrame == -1 })
        // index counts the frames handed out before each one.
        let indices = collected.all.map(\.frame.index)
        #expect(zip(indices, indices.dropFirst()).allSatisfy { $1 == $0 + 1 })
        consumer.cancel()
        engine.shutdown()
    }

    @Test func speechFramesCarryAudioTimes004ApartAndEndsReplyComesOnce() async throws {
        let engine = try await Self.engine(clock: SystemKitClock())
        engine.pacing = .unpaced
        engine.feed(Self.speech(seconds: 1.0))
        engine.flushTail()
        var frames: [Essence2Frame] = []
        while let frame = await engine.nextFrame() {
            frames.append(frame)
            if frame.endsReply { break }
            if frames.count > 200 { break }
        }
        let speech = frames.filter(\.isSpeech)
        #expect(speech.count == 25)
        #expect(speech.map(\.audioTime) == (0..<25).map { Optional(Double($0) * 0.04) })
        #expect(speech.map(\.replyFrame) == Array(0..<25))
        #expect(frames.map(\.index) == Array(frames[0].index..<(frames[0].index + frames.count)))
        #expect(frames.filter { !$0.isSpeech }.allSatisfy { $0.audioTime == nil })
        // Each speech frame carries its own 640 samples of the fed speech (the engine's one int16 rule).
        let fed = Self.speech(seconds: 1.0).map(SampleConversion.int16)
        #expect(speech.flatMap(\.audio) == fed)
        #expect(frames.filter(\.endsReply).count == 1)
        #expect(frames.last?.endsReply == true && frames.last?.isSpeech == false)
        #expect(frames.allSatisfy { $0.bgr.count == engine.width * engine.height * 3 })
        engine.shutdown()
    }

    @Test func aSlowConsumerOfTheStreamMissesNoFrameUnpaced() async throws {
        let engine = try await Self.engine(clock: SystemKitClock())
        engine.pacing = .unpaced
        engine.feed(Self.speech(seconds: 1.0))
        engine.flushTail()
        var speech: [Int] = []
        var ended = false
        for await frame in engine.frames() {
            usleep(15_000)  // slower than the engine renders
            if frame.isSpeech { speech.append(frame.replyFrame) }
            if frame.endsReply {
                ended = true
                break
            }
        }
        #expect(speech == Array(0..<25))
        #expect(ended)
        engine.shutdown()
    }

    @Test func eventsStartAndEndEachReplyExactlyOnce() async throws {
        let engine = try await Self.engine(clock: SystemKitClock())
        engine.pacing = .unpaced
        let events = engine.events()
        let seen = Task { () -> [Essence2Event] in
            var all: [Essence2Event] = []
            for await event in events { all.append(event) }
            return all
        }
        for _ in 0..<2 {
            engine.feed(Self.speech(seconds: 0.5))
            engine.flushTail()
            var guardCount = 0
            while let frame = await engine.nextFrame(), !frame.endsReply, guardCount < 200 { guardCount += 1 }
        }
        engine.shutdown()  // finishes the event stream
        #expect(await seen.value == [.replyStarted, .replyEnded, .replyStarted, .replyEnded])
    }

    @Test func interruptMidReplyEndsItOnceAndEasesToRest() async throws {
        let engine = try await Self.engine(clock: SystemKitClock())
        engine.pacing = .unpaced
        let events = engine.events()
        let seen = Task { () -> [Essence2Event] in
            var all: [Essence2Event] = []
            for await event in events { all.append(event) }
            return all
        }
        engine.feed(Self.speech(seconds: 3.0))
        var speech = 0
        while speech < 10, let frame = await engine.nextFrame() {
            if frame.isSpeech { speech += 1 }
        }
        engine.interrupt()
        engine.interrupt()  // a second interrupt while easing is nothing more
        var after: [Essence2Frame] = []
        while let frame = await engine.nextFrame(), after.count < 100 {
            after.append(frame)
            if frame.endsReply { break }
        }
        #expect(after.filter(\.isSpeech).count <= 4, "speech frames already rendered may still show: \(after.filter(\.isSpeech).count)")
        #expect(after.last?.endsReply == true)
        #expect(engine.pendingSamples == 0)
        engine.shutdown()
        #expect(await seen.value == [.replyStarted, .replyEnded])
    }

    @Test func shutdownFinishesEveryStream() async throws {
        let engine = try await Self.engine(clock: SystemKitClock())
        let frames = engine.frames()
        let events = engine.events()
        let framesDone = Task { for await _ in frames {} }
        let eventsDone = Task { for await _ in events {} }
        usleep(100_000)
        engine.shutdown()
        await framesDone.value
        await eventsDone.value
        #expect(await engine.nextFrame() == nil)
        #expect(engine.pullFrame() == nil)
        // Streams asked for after shutdown end at once.
        for await _ in engine.frames() { Issue.record("a frame after shutdown") }
    }

    @Test func cancellingTheConsumerReleasesTheEngine() async throws {
        weak var released: Essence2Engine?
        let consumer: Task<Void, Never>
        do {
            let engine = try await Self.engine(clock: SystemKitClock())
            released = engine
            let stream = engine.frames()
            consumer = Task { for await _ in stream {} }
            usleep(200_000)
        }
        consumer.cancel()
        await consumer.value
        for _ in 0..<200 where released != nil { usleep(5_000) }
        #expect(released == nil, "the engine is released (deinit ran) once its only consumer is cancelled")
    }

    @Test func pendingSamplesCountWhatTheRingCouldNotTakeYet() async throws {
        let engine = try await Self.engine(clock: SystemKitClock())
        engine.pacing = .unpaced
        let fed = 20 * 16_000  // more than the engine's 16 s ring
        engine.feed(Self.speech(seconds: 20))
        let pending = engine.pendingSamples
        #expect(pending > 16 * 16_000 && pending <= fed, "pending \(pending)")
        for _ in 0..<100 { _ = await engine.nextFrame() }
        #expect(engine.pendingSamples < pending)
        #expect(engine.pendingSamples <= fed - 100 * 640 + 3_000)
        engine.shutdown()
    }

    @Test(arguments: [8_000.0, 24_000.0, 44_100.0, 48_000.0])
    func feedingAtAnyRateGivesAFrameFor40msOfAudio(rate: Double) async throws {
        let engine = try await Self.engine(clock: SystemKitClock())
        engine.pacing = .unpaced
        let seconds = 1.2
        let samples = Self.speech(seconds: seconds, rate: Int(rate))
        // In uneven pieces, as a stream delivers them.
        var start = 0
        var piece = 0
        while start < samples.count {
            let end = min(samples.count, start + [1_000, 4_410, 333, 9_000][piece % 4])
            engine.feed(Array(samples[start..<end]), sampleRate: rate)
            start = end
            piece += 1
        }
        engine.flushTail()
        var speech = 0
        while let frame = await engine.nextFrame() {
            if frame.isSpeech { speech += 1 }
            if frame.endsReply { break }
        }
        #expect(speech == Int((seconds * 25).rounded(.up)), "\(speech) speech frames for \(seconds) s at \(rate) Hz")
        engine.shutdown()
    }

    /// What a reply of `seconds` of speech looks like through `frames(audioClock:)` on virtual time, with an audio
    /// clock that starts on the first speech frame (as a player does) and runs `speed` times as fast as the frames.
    struct Followed {
        let engine: Essence2Engine
        /// The speech frames handed out and the virtual time of each.
        let speech: [(frame: Essence2Frame, at: Int64)]
        /// Virtual time at which the audio started.
        let origin: Int64?
        let speed: Double

        /// Seconds of audio the clock had played when `at` came.
        func played(at: Int64) -> Double { Double(at - (origin ?? at)) / 1e9 * speed }
    }

    static func follow(speed: Double, seconds: Double, milliseconds: Int) async throws -> Followed {
        let clock = VirtualKitClock()
        let engine = try await Self.engine(clock: clock)
        let started = Locked<Int64?>(nil)
        let audioClock: @Sendable () -> Double? = {
            started.withLock { $0 }.map { Double(clock.nanoseconds() - $0) / 1e9 * speed }
        }
        let collected = Collected()
        let consumer = Self.collect(engine.frames(audioClock: audioClock), clock: clock, into: collected)
        engine.feed(Self.speech(seconds: seconds))
        engine.flushTail()
        for _ in 0..<milliseconds {
            await Self.run(clock, milliseconds: 1)
            if started.withLock({ $0 }) == nil, collected.all.contains(where: { $0.frame.isSpeech }) {
                started.withLock { $0 = clock.nanoseconds() }  // the audio starts on the first speech frame
            }
            if collected.all.contains(where: { $0.frame.endsReply }) { break }
        }
        consumer.cancel()
        return Followed(engine: engine, speech: collected.all.filter { $0.frame.isSpeech },
                        origin: started.withLock { $0 }, speed: speed)
    }

    @Test func followingAnAudioClockThatRunsAheadDropsLateFramesAndCountsThem() async throws {
        // The audio clock runs 1.5 times as fast as the frames (a device that plays ahead).
        let followed = try await Self.follow(speed: 1.5, seconds: 3, milliseconds: 4_000)
        let dropped = followed.engine.droppedFrames
        #expect(dropped > 10, "dropped \(dropped)")
        #expect(followed.speech.count + dropped >= 70)
        #expect(followed.origin != nil)
        // Every speech frame handed out was at most a frame behind the audio clock, and never ahead of it. The
        // collector notes a frame's virtual time when its task next runs: on a loaded machine (ThreadSanitizer,
        // other work) that can be a few virtual milliseconds after the stream handed it out, hence 10 ms of slack
        // in audio time (a clock that is not followed falls behind by 500 ms a second here).
        for (frame, at) in followed.speech.dropFirst() {
            let played = followed.played(at: at)
            let audioTime = try #require(frame.audioTime)
            #expect(played < audioTime + 0.04 + 0.010, "frame \(frame.replyFrame) shown at \(played) s of audio")
            #expect(played >= audioTime - 0.011)
        }
        followed.engine.shutdown()
    }

    @Test func followingAnAudioClockThatRunsSlowHoldsEachFrameUntilItsTime() async throws {
        // A player 20% slow: frames must wait for it, none dropped.
        let followed = try await Self.follow(speed: 0.8, seconds: 1, milliseconds: 3_000)
        #expect(followed.engine.droppedFrames == 0)
        #expect(followed.speech.count >= 20, "\(followed.speech.count) speech frames")
        #expect(followed.origin != nil)
        for (frame, at) in followed.speech.dropFirst() {
            let played = followed.played(at: at)
            let audioTime = try #require(frame.audioTime)
            #expect(played >= audioTime - 0.011, "frame \(frame.replyFrame) at \(played) s: never before its audio")
        }
        followed.engine.shutdown()
    }

    @Test func createRefusesMissingFilesAndMissingResourceDirectories() async {
        await #expect(throws: Essence2KitError.self) {
            _ = try await Essence2Engine.create(identity: "/nonexistent/x.imx", clock: SystemKitClock())
        }
        do {
            _ = try await Essence2Engine.create(identity: Self.avatarPath, resourcesDirectory: "/nonexistent-dir",
                                                clock: SystemKitClock())
            Issue.record("a missing resources directory was accepted")
        } catch {
            guard case .resourcesUnavailable = error else { Issue.record("wrong error \(error)"); return }
        }
    }

    @Test func anOlderFormatVersionIsReportedAsOutdated() async throws {
        var bytes = try AvatarFixture.repositoryFile("avatars/astronaut.imx")
        AvatarFixture.writeU32(&bytes, 8, 0)
        AvatarFixture.reseal(&bytes)
        let path = AvatarFixture.temporaryPath("outdated.imx")
        try BinaryFile.write(bytes, to: path)
        defer { unlink(path) }
        do {
            _ = try await Essence2Engine.create(identity: path, clock: SystemKitClock())
            Issue.record("an outdated identity was accepted")
        } catch {
            guard case .identityOutdated(let reported, _, let reason) = error else { Issue.record("wrong error \(error)"); return }
            #expect(reported == path && reason.contains("older"))
        }
    }

    @Test func createWaitsForReadinessAndTimesOut() async throws {
        let made = try await Essence2Engine.create(identity: Self.avatarPath, readyTimeout: 30, clock: SystemKitClock())
        #expect(made.isReady && made.width == 512 && made.height == 600)
        made.shutdown()
        // An engine whose first frame never renders: create waits 5 s of (virtual) time, then gives up.
        let clock = VirtualKitClock()
        let finished = Locked(false)
        let attempt = Task { () async -> Essence2KitError? in
            defer { finished.withLock { $0 = true } }
            do throws(Essence2KitError) {
                let engine = try await Essence2Engine.create(identity: Self.avatarPath, readyTimeout: 5, clock: clock,
                                                             startRendering: false)
                engine.shutdown()
                return nil
            } catch {
                return error
            }
        }
        for _ in 0..<49 {
            while clock.sleeperCount == 0 && !finished.withLock({ $0 }) { usleep(200) }
            clock.advance(by: 100_000_000)
        }
        #expect(!finished.withLock { $0 }, "still waiting after 4.9 s")
        for _ in 0..<200 where !finished.withLock({ $0 }) {
            while clock.sleeperCount == 0 && !finished.withLock({ $0 }) { usleep(200) }
            clock.advance(by: 100_000_000)
        }
        #expect(await attempt.value == Essence2KitError.notReady)
    }

    @Test func quiesceAllStopsEveryLiveEngine() async throws {
        let a = try await Self.engine(clock: SystemKitClock())
        let b = try await Self.engine(clock: SystemKitClock())
        #expect(Essence2Engine.quiesceAll(timeoutMs: 2_000) >= 2)
        #expect(a.pullFrame() == nil && b.pullFrame() == nil)
        #expect(await a.nextFrame() == nil)
    }
}
