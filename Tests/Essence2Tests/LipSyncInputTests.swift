import Glibc
import Testing
@testable import Essence2Runtime
@testable import Essence2Vision
@testable import Essence2Authoring

// Focused tests of the learned model's two extra hop inputs: the level relative to the recent peak
// (SpeechPeakTracker) and the periodicity (PeriodicityAnalyzer).

@Test func peakTrackerReadsZeroOnTheLoudestSoundAndTheDipBelowIt() {
    var tracker = SpeechPeakTracker()
    #expect(tracker.advance(level: SpeechPeakTracker.silenceLevel) == 0)  // silence is the loudest so far
    #expect(tracker.advance(level: -20) == 0)
    // 20 dB under the peak, one hop later: the peak has fallen by one hop's decay.
    let dip = tracker.advance(level: -40)
    #expect(abs(dip - (-20 + SpeechPeakTracker.decayPerHop)) < 1e-5)
    #expect(tracker.advance(level: -10) == 0)
    #expect(abs(tracker.advance(level: -30) - (-20 + SpeechPeakTracker.decayPerHop)) < 1e-5)
}

@Test func peakFallsSixDecibelsASecondUntilTheBackgroundIsTheLoudest() {
    var tracker = SpeechPeakTracker()
    _ = tracker.advance(level: -20)
    // Background 20 dB under the talker: -20 dB at first, 6 dB less after a second (100 hops), 0 once the
    // peak has fallen to it (20 / 0.06, about 334 hops).
    var readings: [Float] = []
    for _ in 0..<400 { readings.append(tracker.advance(level: -40)) }
    #expect(abs(readings[0] - (-19.94)) < 1e-4)
    #expect(abs(readings[99] - (-14)) < 1e-3)
    #expect(readings[340...].allSatisfy { $0 == 0 })
    #expect(zip(readings, readings.dropFirst()).allSatisfy { $0 <= $1 })
}

@Test func peakDecayDoesNotDriftOverManyHops() {
    var tracker = SpeechPeakTracker()
    _ = tracker.advance(level: 0)
    // 1000 hops (10 s) under a full-scale peak: each reading is the level against 0 - 0.06 dB per hop, computed
    // afresh from the hop that set the peak, not by repeated subtraction.
    var worst = 0.0
    for age in 1...1000 {
        let reading = Double(tracker.advance(level: -90))
        worst = max(worst, abs(reading - (-90 + 0.06 * Double(age))))
    }
    #expect(worst < 1e-4, "largest drift \(worst) dB")
}

private func periodicity(of samples: [Int16], hop: Int = 40) -> Float {
    var buffer = SampleBuffer()
    samples.withUnsafeBufferPointer { buffer.append($0) }
    var analyzer = PeriodicityAnalyzer()
    return analyzer.analyze(buffer, end: 160 * hop + 280, realEnd: samples.count)
}

private func pcm(_ count: Int = 16000, _ f: (Double) -> Double) -> [Int16] {
    (0..<count).map { Int16((max(-1, min(1, f(Double($0) / 16000))) * 32767).rounded()) }
}

@Test func aVoicedToneIsPeriodicAndNoiseIsNot() {
    // A buzzy 140 Hz voice-like tone (harmonics falling off) against white noise.
    let voiced = pcm { t in (1...8).reduce(0) { $0 + 0.3 / Double($1) * sin(2 * Double.pi * 140 * Double($1) * t) } }
    var random = TestRandom(seed: 7)
    let noise = (0..<16000).map { _ in Int16((random.signed() * 8000).rounded()) }
    #expect(periodicity(of: voiced) > 0.95)
    #expect(periodicity(of: noise) < 0.4)
}

@Test func overlappingVoicesAreLessPeriodicThanOneVoice() {
    func voice(_ f0: Double) -> (Double) -> Double {
        { t in (1...6).reduce(0) { $0 + 0.12 / Double($1) * sin(2 * Double.pi * f0 * Double($1) * t + Double($1)) } }
    }
    let one = pcm(16000, voice(118))
    let four = pcm(16000) { t in [118.0, 151, 197, 233].reduce(0) { $0 + voice($1)(t) } }
    #expect(periodicity(of: one) > periodicity(of: four) + 0.2)
}

@Test func silenceAndAStraySampleReadZeroPeriodicity() {
    #expect(periodicity(of: [Int16](repeating: 0, count: 16000)) == 0)
    var stray = [Int16](repeating: 0, count: 16000)
    stray[160 * 40] = 1
    #expect(periodicity(of: stray) == 0)
    // Before the stream and past its end the window reads silence.
    #expect(periodicity(of: [Int16](repeating: 1000, count: 100), hop: 0) >= 0)
    #expect(periodicity(of: [Int16](repeating: 0, count: 10), hop: 5) == 0)
}

@Test func periodicityStaysInItsRangeForFullScaleAudio() {
    var random = TestRandom(seed: 11)
    let clipped = (0..<16000).map { i in i % 97 < 48 ? Int16.max : Int16.min }
    let loudNoise = (0..<16000).map { _ in random.signed() > 0 ? Int16.max : Int16.min }
    for audio in [clipped, loudNoise] {
        for hop in stride(from: 0, to: 100, by: 7) {
            let p = periodicity(of: audio, hop: hop)
            #expect(p >= 0 && p <= 1 && p.isFinite)
        }
    }
}
