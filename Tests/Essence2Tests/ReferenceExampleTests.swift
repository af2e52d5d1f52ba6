import FoundationEssentials
import Testing
#if canImport(Glibc)
import Glibc
#endif
import Essence2Kit
@testable import Essence2Runtime

/// The reference's Swift examples (its iOS page, "First frame"), compiled against Essence2Kit and run: changed
/// only where Linux has no AVFoundation (an `Essence2Playout` player in place of `AVAudioPlayerNode`) and where a
/// test needs its surroundings (a loopback stand-in for the download service, a temporary cache, the secret in
/// the environment). What the page says must hold: the frames follow the player's audio, the reply's audio starts
/// on its first frame, `endsReply` ends the loop.
extension GlobalStateTests {
@Suite struct ReferenceExampleTests {
    /// A player like AVAudioPlayerNode on the monotonic clock: `scheduleBuffer`, `play`, `stop`, and how much of
    /// the scheduled audio it has played (nil while stopped).
    final class TestPlayer: Essence2Playout, @unchecked Sendable {
        private let state = Locked<(buffer: [Float], startedAt: Int64?)>(([], nil))

        func scheduleBuffer(_ buffer: [Float]) { state.withLock { $0.buffer += buffer } }
        func play() { state.withLock { $0.startedAt = SystemClock().nanoseconds() } }
        func stop() { state.withLock { $0 = ([], nil) } }

        var secondsPlayed: Double? {
            state.withLock { s -> Double? in
                guard let start = s.startedAt else { return nil }
                let elapsed = Double(SystemClock().nanoseconds() - start) / 1e9
                return min(elapsed, Double(s.buffer.count) / 16_000)
            }
        }
    }

    /// The reference's `show(_:_:_:)`: here it keeps what was shown, and the player's position at that moment.
    final class Screen: @unchecked Sendable {
        let shown = Locked<[(frame: Essence2Frame, played: Double?)]>([])
        let player: TestPlayer
        init(_ player: TestPlayer) { self.player = player }
        func show(_ frame: Essence2Frame) { shown.withLock { $0.append((frame, player.secondsPlayed)) } }
    }

    /// Runs `body` with a loopback service holding the sample avatar as agent code A52DHS2219 (and A23WJF0199),
    /// configured as the reference's would be: the secret in BITHUMAN_API_SECRET, the cache in a fresh directory.
    /// The example's surroundings: the speech, the player, and `show` keeping what was shown.
    static func withService(_ body: (_ samples: [Float], _ player: TestPlayer, _ show: (Essence2Frame) -> Void,
                                     _ screen: Screen) async throws -> Void) async throws {
        let avatar = try BinaryFile.read(path: TestAvatar.repositoryRoot + "/avatars/grace-hopper.imx", maxSize: 64 << 20)
        let service = try LoopbackService(avatars: ["A52DHS2219": avatar, "A23WJF0199": avatar])
        let cache = "/tmp/essence2-reference-example-\(getpid())"
        setenv("BITHUMAN_API_SECRET", "sk-reference-example", 1)
        setenv("XDG_CACHE_HOME", cache, 1)
        Essence2Credential.setServiceURL(service.url)
        defer {
            Essence2Credential.setServiceURL(nil)
            Essence2Credential.set(nil)
            unsetenv("BITHUMAN_API_SECRET")
            unsetenv("XDG_CACHE_HOME")
            service.stop()
            _ = system("rm -rf '\(cache)'")
        }
        let player = TestPlayer()
        let screen = Screen(player)
        try await body(Self.samples, player, { screen.show($0) }, screen)
        #expect(service.requests.contains { $0.hasPrefix("GET /v1/avatars/") && $0.hasSuffix("/file") })
    }

    /// 2 s of speech-like samples, 16 kHz mono, as [Float].
    static let samples: [Float] = EngineTests.speech(seconds: 2).map(SampleConversion.float)

    /// What the page promises of the frames shown: the reply's first frame once (audioTime 0), each later speech
    /// frame shown while the player plays its 40 ms (at most 10 ms early), and the loop ended by `endsReply`.
    static func checkFollowsThePlayer(_ shown: [(frame: Essence2Frame, played: Double?)], dropped: Int) {
        let speech = shown.filter { $0.frame.isSpeech }
        #expect(speech.filter { $0.frame.audioTime == 0 }.count == 1)
        #expect(shown.last?.frame.endsReply == true)
        #expect(speech.count + dropped == 50, "\(speech.count) speech frames shown, \(dropped) dropped")
        // A frame whose 40 ms have wholly played before the loop asked for it is skipped, as the page says; on a
        // loaded machine (the whole suite runs in parallel on two cores) a few are. Most must be shown.
        #expect(dropped <= 10, "\(dropped) of 50 frames dropped")
        for (frame, played) in speech.dropFirst() {
            guard let audioTime = frame.audioTime, let played else {
                Issue.record("speech frame \(frame.replyFrame) without an audio time or a playing player")
                continue
            }
            #expect(played >= audioTime - 0.011, "frame at \(audioTime) s shown at \(played) s: before its audio")
            #expect(played < audioTime + 0.08, "frame at \(audioTime) s shown at \(played) s: late")
        }
    }

    @Test func essence2FirstFrameExampleFollowsThePlayer() async throws {
        try await Self.withService { samples, player, show, screen in

            // ---- the reference's Essence 2 example, from here ----
            Essence2Credential.set(ProcessInfo.processInfo.environment["BITHUMAN_API_SECRET"] ?? "")
            let imxURL = try await Essence2Download.identity(agentCode: "A52DHS2219")   // sofia-ramirez
            let engine = try await Essence2Engine.create(identity: imxURL)            // waits until the engine is ready

            let reply = samples  // AVAudioPCMBuffer in the reference; TestPlayer takes the samples

            engine.feed(samples)                                              // [Float], 16 kHz mono
            engine.flushTail()                                                // that is the whole reply
            for await frame in engine.frames(following: player) {
                show(frame)                                                   // B, G, R bytes, width * height * 3
                if frame.audioTime == 0 {                                     // the reply's first speech frame:
                    player.stop(); player.scheduleBuffer(reply); player.play()  // start its audio now
                }
                if frame.endsReply { break }                                  // the reply is over; idle frames follow
            }
            let dropped = engine.droppedFrames
            engine.shutdown()
            // ---- to here ----

            #expect(imxURL.path.hasSuffix(".imx"))
            #expect(engine.runtimeFailure != nil, "runtimeFailure is set once the engine stopped")
            Self.checkFollowsThePlayer(screen.shown.withLock { $0 }, dropped: dropped)
        }
    }

    @Test func audioClockExampleFollowsYourOwnClock() async throws {
        try await Self.withService { samples, player, show, screen in

            // ---- the reference's example with your own clock (frames(audioClock:)), on Essence 2 ----
            Essence2Credential.set(ProcessInfo.processInfo.environment["BITHUMAN_API_SECRET"] ?? "")
            let imxURL = try await Essence2Download.identity(agentCode: "A23WJF0199")
            let engine = try await Essence2Engine.create(identity: imxURL)
            let reply = samples

            // seconds of the current reply your player has played (nil before it starts); frames() reads it
            // off the main actor, so the player goes in a Sendable box
            final class PlayedSeconds: @unchecked Sendable {
                let node: TestPlayer
                init(_ node: TestPlayer) { self.node = node }
                func callAsFunction() -> Double? { node.secondsPlayed }
            }
            let played = PlayedSeconds(player)

            engine.feed(samples)   // [Float], 16 kHz mono
            engine.flushTail()     // end of the reply
            for await frame in engine.frames(audioClock: { played() }) {
                show(frame)                                                       // B, G, R bytes
                if frame.audioTime == 0 { player.scheduleBuffer(reply); player.play() }   // the reply's first frame: start its audio
                if frame.endsReply { break }                                      // the reply is over; idle frames follow
            }
            let dropped = engine.droppedFrames
            engine.shutdown()
            // ---- to here ----

            Self.checkFollowsThePlayer(screen.shown.withLock { $0 }, dropped: dropped)
        }
    }

    @Test func anOutdatedAvatarThatEssence2DownloadFetchedIsFetchedOnceMoreByCreate() async throws {
        let current = try BinaryFile.read(path: TestAvatar.repositoryRoot + "/avatars/grace-hopper.imx", maxSize: 64 << 20)
        var outdated = current
        AvatarFixture.writeU32(&outdated, 8, 0)  // format version 0: older than this renderer reads
        AvatarFixture.reseal(&outdated)
        let service = try LoopbackService(avatars: ["A52DHS2219": outdated])
        let cache = "/tmp/essence2-outdated-\(getpid())"
        Essence2Credential.setServiceURL(service.url)
        Essence2Credential.set("sk-outdated")
        defer {
            Essence2Credential.setServiceURL(nil)
            Essence2Credential.set(nil)
            service.stop()
            _ = system("rm -rf '\(cache)'")
        }
        let directory = URL(fileURLWithPath: cache, isDirectory: true)
        let old = try await Essence2Download.identity(agentCode: "A52DHS2219", directory: directory)
        // The service publishes a rebuilt avatar; create finds the old one outdated and fetches the code again.
        service.publish("A52DHS2219", current)
        let engine = try await Essence2Engine.create(identity: old)
        #expect(engine.isReady)
        engine.shutdown()
        #expect(service.requests.filter { $0 == "GET /v1/avatars/A52DHS2219/file" }.count == 2)
        // A file that did not come from Essence2Download is reported, not fetched.
        let elsewhere = cache + "/elsewhere.imx"
        #expect(BinaryFile.replaceAtomically(outdated, at: elsewhere, mode: 0o644))
        do {
            _ = try await Essence2Engine.create(identity: URL(fileURLWithPath: elsewhere))
            Issue.record("an outdated file was accepted")
        } catch let error as Essence2KitError {
            guard case .identityOutdated(let path, let code, _) = error else { Issue.record("\(error)"); return }
            #expect(path == elsewhere && code == nil)
        }
    }

    @Test func essence2ConstantsHaveTheReferenceTypes() {
        let fps: Double = Essence2Engine.framesPerSecond
        #expect(fps == 25)
        // `import Essence2Kit` gives the C interface too, as the reference's Essence2Kit includes Essence2.
        #expect(String(cString: be_essence2_version()) == LibraryVersion.string.description)
        #expect(be_essence2_version_number() == ESSENCE2_VERSION_MAJOR * 1_000_000 + ESSENCE2_VERSION_MINOR * 1_000
                + ESSENCE2_VERSION_PATCH)
    }

    @Test func resourcesEnsureNeedsNoDownload() async throws {
        let home = "/tmp/essence2-resources-\(getpid())"
        setenv("XDG_DATA_HOME", home, 1)
        defer {
            unsetenv("XDG_DATA_HOME")
            _ = system("rm -rf '\(home)'")
        }
        let directory = try await Essence2Resources.ensure()
        #expect(directory.path == home + "/essence2/" + Essence2Resources.releaseTag)
        #expect(Essence2Resources.releaseTag == LibraryVersion.string.description)
        let engine = try await Essence2Engine.create(identity: URL(fileURLWithPath: TestAvatar.repositoryRoot
                                                     + "/avatars/grace-hopper.imx"), resourcesDirectory: directory)
        #expect(engine.isReady)
        engine.shutdown()
    }
}
}
