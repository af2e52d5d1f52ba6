import Glibc
import Testing
@testable import Essence2Runtime

/// The motion that follows the voice: loudness and pitch per frame (`ProsodyAnalyzer`), and the nods, turns,
/// brows, glances and blinks made from them (`SpeechMotion`).
struct SpeechMotionTests {
    /// A voiced tone: `pitch` Hz with 8 harmonics at about `level` dBFS RMS.
    static func voice(pitch: Double, level: Double, frames: Int) -> [Int16] {
        let n = frames * StreamFormat.samplesPerFrame
        let amplitude = 32768 * pow(10, level / 20) * 1.6
        return (0..<n).map { i in
            let t = Double(i) / Double(StreamFormat.sampleRate)
            var v = 0.0
            for h in 1...8 { v += sin(2 * .pi * pitch * Double(h) * t) / Double(h) }
            return Int16(max(-32767, min(32767, v * amplitude / 2)))
        }
    }

    static func cues(_ samples: [Int16]) -> [SpeechCue] {
        var stream = LipSyncStream()
        samples.withUnsafeBufferPointer { stream.append($0) }
        var out: [SpeechCue] = []
        while stream.nextFrame(flush: true) != nil { out.append(stream.lastCue) }
        return out
    }

    static func cue(level: Float, pitch: Float = 140) -> SpeechCue { SpeechCue(level: level, pitch: pitch) }

    @Test func prosodyReadsTheLevelAndPitchOfAVoicedTone() {
        for pitch in [100.0, 140.0, 220.0, 330.0] {
            let samples = Self.voice(pitch: pitch, level: -20, frames: 10)
            let cues = Self.cues(samples)
            #expect(cues.count == 10)
            for (k, c) in cues.enumerated() {
                let frame = samples[(k * 640)..<((k + 1) * 640)].map { Double($0) / 32768 }
                let level = 10 * log10(frame.reduce(0) { $0 + $1 * $1 } / 640)
                #expect(abs(c.pitch / Float(pitch) - 1) < 0.04, "\(pitch) Hz read as \(c.pitch)")
                #expect(abs(Double(c.level) - level) < 0.01, "level \(c.level), not \(level)")
            }
        }
    }

    @Test func silenceAndNoiseHaveNoPitch() {
        #expect(Self.cues([Int16](repeating: 0, count: 6400)).allSatisfy { $0 == .silence })
        var random = TestRandom(seed: 9)
        let noise = (0..<16000).map { _ in Int16((random.signed() * 6000).rounded()) }
        let cues = Self.cues(noise)
        #expect(cues.allSatisfy { !$0.isVoiced && $0.level > -30 && $0.level < -10 })
    }

    @Test func silenceMakesNoMotionAndTheFadeEndsOnNone() {
        var m = SpeechMotion(seed: 1)
        for _ in 0..<100 { #expect(m.advance(.silence) == .none) }
        for _ in 0..<40 { _ = m.advance(Self.cue(level: -20)) }
        for r in stride(from: 5, through: 1, by: -1) {
            let g = m.fade(remaining: r)
            if r == 1 { #expect(g == .none) }
        }
    }

    /// A talker at a steady level with louder, higher syllables every 1.2 s.
    static func emphatic(frames: Int) -> [SpeechCue] {
        (0..<frames).map { k in
            let beat = k % 30 >= 20 && k % 30 < 24
            return beat ? cue(level: -14, pitch: 190) : cue(level: -24, pitch: 130)
        }
    }

    @Test func emphasisNodsTheHeadAndLiftsTheBrows() {
        var nods = 0, browPeak: Float = 0
        var previousPitch: Float = 0
        for seed: UInt64 in [1, 2, 3] {
            var m = SpeechMotion(seed: seed)
            for c in Self.emphatic(frames: 300) {
                let g = m.advance(c)
                if g.headPitch > 0.2, previousPitch <= 0.2 { nods += 1 }
                previousPitch = g.headPitch
                browPeak = max(browPeak, g.browRaise)
            }
        }
        // 10 beats per 12 s, most of them nodded.
        #expect(nods >= 15 && nods <= 30, "nods \(nods)")
        #expect(browPeak > 0.3)
        // A flat voice neither nods nor lifts the brows.
        var m = SpeechMotion(seed: 1)
        var flatPeak: Float = 0
        for k in 0..<300 {
            let g = m.advance(Self.cue(level: -24, pitch: 130))
            if k > 10 { flatPeak = max(flatPeak, g.headPitch, g.browRaise) }
        }
        #expect(flatPeak < 0.05)
    }

    @Test func blinksComeAtPhraseEndsAndPhrasesTurnTheHead() {
        var blinksInPauses = 0, blinksInSpeech = 0, turns: Set<Float> = []
        for seed: UInt64 in 0..<12 {
            var m = SpeechMotion(seed: seed)
            var wasClosed = false
            // Phrases of 2 s with 0.6 s pauses.
            for k in 0..<(65 * 4) {
                let speaking = k % 65 < 50
                let g = m.advance(speaking ? Self.cue(level: -22) : .silence)
                if g.blink > 0, !wasClosed {
                    if k % 65 >= 50 + SpeechMotion.phrasePause - 1 { blinksInPauses += 1 } else { blinksInSpeech += 1 }
                }
                wasClosed = g.blink > 0
                if k % 65 == 49 { turns.insert((g.headYaw * 100).rounded()) }
            }
        }
        #expect(blinksInSpeech == 0)
        #expect(blinksInPauses >= 16, "\(blinksInPauses) blinks in 48 pauses")
        #expect(turns.count > 20, "the head turns differently from phrase to phrase")
    }

    @Test func motionIsSmoothFrameToFrameOnRealSpeech() throws {
        let samples = try SpeechFixture.samples("speech_bilabial")
        let cues = Self.cues(samples + Self.voice(pitch: 150, level: -18, frames: 50)
            + [Int16](repeating: 0, count: 16000) + samples)
        var m = SpeechMotion(seed: 0x5EED)
        var previous = SpeechGesture.none
        var moved: Float = 0
        for c in cues {
            let g = m.advance(c)
            #expect(abs(g.headPitch - previous.headPitch) < 0.2)
            #expect(abs(g.headYaw - previous.headYaw) < 0.08)
            #expect(abs(g.headRoll - previous.headRoll) < 0.004)
            #expect(abs(g.browRaise - previous.browRaise) < 0.15)
            moved = max(moved, abs(g.headYaw), abs(g.headPitch))
            previous = g
        }
        #expect(moved > 0.1, "speech moves the head")
    }

    @Test func theSameCuesAndSeedGiveTheSameMotion() {
        let cues = Self.emphatic(frames: 200) + [SpeechCue](repeating: .silence, count: 20) + Self.emphatic(frames: 100)
        func run(_ seed: UInt64) -> [SpeechGesture] {
            var m = SpeechMotion(seed: seed)
            return cues.map { m.advance($0) }
        }
        #expect(run(7) == run(7))
        #expect(run(7) != run(8))
    }

    @Test func absurdCuesStayInRange() {
        var m = SpeechMotion(seed: 3)
        let odd = [SpeechCue(level: .nan, pitch: .nan), SpeechCue(level: .infinity, pitch: -5),
                   SpeechCue(level: 40, pitch: 1e9), SpeechCue(level: -1e9, pitch: .infinity)]
        for k in 0..<400 {
            let g = m.advance(odd[k % odd.count])
            for v in [g.headPitch, g.headYaw, g.headRoll, g.browRaise, g.gaze.x, g.gaze.y, g.blink] {
                #expect(v.isFinite && abs(v) <= 2)
            }
        }
    }
}
