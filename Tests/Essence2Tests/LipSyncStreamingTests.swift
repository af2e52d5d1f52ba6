import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import Essence2Runtime

/// Audio as a streaming text-to-speech service delivers it: uneven chunks of 10-300 ms with 50-400 ms gaps
/// inside one reply. The mouth must be the one the whole file gives; where the audio runs dry for longer than
/// the look-ahead, the mouth closes and stays closing until the audio returns.
@Suite(.serialized) struct LipSyncStreamingTests {
    static let ms: Int64 = 1_000_000

    /// A speech recording (espeak-ng, with p/b/m and open vowels) repeated to about 6 s.
    static let speech: [Int16] = {
        let one = (try? SpeechFixture.samples("speech_bilabial")) ?? []
        var out: [Int16] = []
        while !one.isEmpty, out.count < 6 * 16_000 { out += one }
        return out
    }()

    /// Seeded chunk sizes (10-300 ms of audio) and the wall-clock gaps after each (50-400 ms).
    static func schedule(seed: UInt64, total: Int) -> [(samples: Int, gapMs: Int64)] {
        var state = seed
        func next(_ range: ClosedRange<Int>) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return range.lowerBound + Int((state >> 33) % UInt64(range.count))
        }
        var out: [(Int, Int64)] = []
        var left = total
        while left > 0 {
            let n = min(left, next(10...300) * 16)
            out.append((n, Int64(next(50...400))))
            left -= n
        }
        return out
    }

    /// The articulation of every audio frame when the whole file is there at once.
    static func wholeFile() -> [Articulation] {
        var stream = LipSyncStream(model: .learned)
        speech.withUnsafeBufferPointer { stream.append($0) }
        var out: [Articulation] = []
        while let a = stream.nextFrame(flush: true) { out.append(a) }
        return out
    }

    static func same(_ a: Articulation, _ b: Articulation) -> Bool {
        abs(a.jawOpen - b.jawOpen) <= 1e-6 && abs(a.lipSpread - b.lipSpread) <= 1e-6
            && abs(a.lipPress - b.lipPress) <= 1e-6
    }

    static func openness(_ a: Articulation) -> Float { a.jawOpen * (1 - a.lipPress) }

    func pullWaiting(_ engine: Engine, into buffer: UnsafeMutableRawBufferPointer) -> FrameKind? {
        for _ in 0..<3000 {
            if let kind = engine.pullFrame(into: buffer) { return kind }
            usleep(1000)
        }
        return nil
    }

    @Test func unpacedChunksWithGapsGiveTheSameFramesAsTheWholeFile() {
        func render(chunked: Bool) -> [[UInt8]] {
            let clock = ManualClock()
            let engine = Engine(avatar: TestAvatar.grace, clock: clock)
            engine.setPacing(.unpaced)
            engine.setSeed(11)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: engine.frameBytes, alignment: 16)
            defer { buffer.deallocate() }
            var frames: [[UInt8]] = []
            let audio = Array(Self.speech.prefix(3 * 16_000))
            let chunks: [(samples: Int, gapMs: Int64)] =
                chunked ? Self.schedule(seed: 3, total: audio.count) : [(samples: audio.count, gapMs: Int64(0))]
            var at = 0
            for (n, gap) in chunks {
                _ = audio[at..<(at + n)].withUnsafeBufferPointer { engine.pushAudio($0) }
                at += n
                // Take whatever is ready before the next chunk arrives, as a host loop would.
                while let kind = engine.pullFrame(into: buffer) {
                    frames.append(Array(buffer))
                    #expect(kind == .speech)
                }
                clock.advance(by: gap * Self.ms)
            }
            engine.endUtterance()
            while let kind = pullWaiting(engine, into: buffer), kind != .idle { frames.append(Array(buffer)) }
            return frames
        }
        let whole = render(chunked: false)
        let chunked = render(chunked: true)
        #expect(whole.count >= 75)
        #expect(chunked.count == whole.count)
        #expect(chunked == whole)
    }

    @Test func realtimeChunksWithGapsKeepTheWholeFileMouthAndCloseWhileTheAudioRunsDry() {
        let reference = Self.wholeFile()
        let clock = ManualClock()
        let engine = Engine(avatar: TestAvatar.grace, clock: clock)
        engine.setPacing(.realtime)
        engine.setSeed(5)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: engine.frameBytes, alignment: 16)
        defer { buffer.deallocate() }

        // Deliveries on virtual time (ms since the start), each pushed just before the clock reaches it.
        var deliveries: [(at: Int64, samples: ArraySlice<Int16>)] = []
        var t: Int64 = 0, at = 0
        for (n, gap) in Self.schedule(seed: 9, total: Self.speech.count) {
            deliveries.append((t, Self.speech[at..<(at + n)]))
            at += n
            t += gap
        }
        /// Samples delivered by `ms` (pushes happen at their time, before the clock passes it).
        func delivered(by ms: Int64) -> Int {
            deliveries.reduce(0) { $0 + ($1.at <= ms ? $1.samples.count : 0) }
        }
        var shown: [ShownFrame] = []
        var shownAt: [Int64] = []
        var now: Int64 = 0, next = 0, ended = false
        while now < t + 3000 {
            while next < deliveries.count, deliveries[next].at <= now {
                _ = deliveries[next].samples.withUnsafeBufferPointer { engine.pushAudio($0) }
                next += 1
            }
            if next == deliveries.count, !ended {
                engine.endUtterance()
                ended = true
            }
            clock.advance(by: 10 * Self.ms)
            now += 10
            guard now % 40 == 0 else { continue }
            guard let kind = pullWaiting(engine, into: buffer) else {
                Issue.record("no frame at \(now) ms")
                return
            }
            if kind == .speech, let frame = engine.core.state.withLock({ $0.lastShown }) {
                shown.append(frame)
                shownAt.append(now)
            }
        }

        // Every audio frame is shown once, in order; a held frame consumes none.
        var audioFrames: [(index: Int, articulation: Articulation, position: Int)] = []
        var heldRuns: [[Int]] = []
        var previousEnd: Int64 = 0
        for (k, frame) in shown.enumerated() {
            if frame.audioEnd == previousEnd {
                if let last = heldRuns.last, last.last == k - 1 { heldRuns[heldRuns.count - 1].append(k) } else {
                    heldRuns.append([k])
                }
                continue
            }
            #expect(frame.audioEnd - previousEnd <= 640)
            audioFrames.append((Int((frame.audioEnd + 639) / 640) - 1, frame.articulation, k))
            previousEnd = frame.audioEnd
        }
        #expect(audioFrames.map(\.index) == Array(0..<reference.count))
        #expect(!heldRuns.isEmpty, "the schedule is meant to run dry at least once")

        // Same mouth as the whole file for every frame whose audio and look-ahead had arrived a frame period
        // before it was due; only a frame whose look-ahead was late may differ (drawn with what was there).
        var differing = 0
        for f in audioFrames where f.index < reference.count && !Self.same(f.articulation, reference[f.index]) {
            differing += 1
            let needed = 640 * (f.index + 1) + LipSyncStream.lookaheadSamples
            #expect(delivered(by: shownAt[f.position] - 40) < needed,
                    "audio frame \(f.index) differs although its audio and look-ahead were there in time")
        }
        #expect(audioFrames.count - differing >= reference.count * 3 / 4)

        // While the audio runs dry the mouth only closes (no flapping), and is nearly shut after 3 held frames.
        for run in heldRuns {
            var before = Self.openness(shown[run[0] - 1].articulation)
            for (step, k) in run.enumerated() {
                let o = Self.openness(shown[k].articulation)
                #expect(o <= before + 1e-6, "held frame \(k) opens the mouth")
                if step >= 2 { #expect(o <= 0.2) }
                before = o
            }
        }
    }
}
