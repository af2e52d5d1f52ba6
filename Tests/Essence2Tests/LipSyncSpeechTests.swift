import Glibc
import Testing
@testable import Essence2Runtime
@testable import Essence2Vision
@testable import Essence2Authoring

/// Frames whose 40 ms span lies inside `phoneme`, leaving out `margin` frames at each end.
private func frames(
    of phoneme: SpeechFixture.Phoneme, in all: [Articulation], margin: Int = 1
) -> ArraySlice<Articulation> {
    let first = (phoneme.start + 639) / 640 + margin
    let last = phoneme.end / 640 - margin
    return first < last ? all[first..<last] : []
}

private func mean(_ values: some Collection<Float>) -> Float {
    values.isEmpty ? 0 : values.reduce(0, +) / Float(values.count)
}

/// A closed mouth as the renderer should show it for p, b and m.
private func isClosure(_ a: Articulation) -> Bool { a.lipPress >= 0.5 && a.jawOpen <= 0.2 }

/// A mouth at rest, give or take what a learned model's smooth outputs leave.
private func isNearRest(_ a: Articulation) -> Bool {
    a.jawOpen < 0.03 && abs(a.lipSpread) < 0.05 && a.lipPress < 0.05
}

/// Copy of `samples` scaled so that its largest magnitude is `peakDBFS` relative to full scale.
private func scaled(_ samples: [Int16], peakDBFS: Double) -> [Int16] {
    let peak = samples.map { abs(Double($0)) }.max() ?? 1
    let gain = 32768 * pow(10, peakDBFS / 20) / peak
    return samples.map { Int16((Double($0) * gain).rounded()) }
}

@Test(arguments: LipSyncModel.allCases)
func silenceKeepsTheMouthClosed(model: LipSyncModel) {
    let frames = LipSyncDriver.frames([Int16](repeating: 0, count: 48000), model: model)
    #expect(frames.count == 75)
    #expect(frames.allSatisfy(isNearRest))
    if model == .v1 { #expect(frames.allSatisfy { $0 == .rest }) }
}

@Test(arguments: LipSyncModel.allCases)
func lowSteadyNoiseKeepsTheMouthClosed(model: LipSyncModel) {
    // White noise at about -60 dBFS RMS, then quieter hiss at -75 dBFS.
    var random = TestRandom(seed: 4)
    let noise = (0..<64000).map { i in
        Int16((random.signed() * (i < 32000 ? 56 : 10)).rounded())
    }
    let frames = LipSyncDriver.frames(noise, model: model)
    #expect(frames.allSatisfy { $0.jawOpen < 0.03 && $0.lipPress < 0.1 })
}

@Test(arguments: LipSyncModel.allCases)
func loudOpenVowelOpensTheJawAndCloseVowelsLess(model: LipSyncModel) throws {
    let samples = try SpeechFixture.samples("speech_vowels")
    let phonemes = try SpeechFixture.phonemes("speech_vowels", total: samples.count)
    let all = LipSyncDriver.frames(samples, model: model)
    func vowel(_ name: String) throws -> ArraySlice<Articulation> {
        let p = try #require(phonemes.first { $0.name == name })
        return frames(of: p, in: all)
    }
    let aa = try vowel("A:")
    let ee = try vowel("i:")
    let oo = try vowel("u:")
    #expect(aa.count >= 6 && ee.count >= 5 && oo.count >= 10)
    #expect(aa.allSatisfy { $0.jawOpen > 0.6 })
    #expect(mean(aa.map(\.jawOpen)) > 0.8)  // the target is 0.9 (docs/lipsync.md)
    #expect(mean(ee.map(\.jawOpen)) < mean(aa.map(\.jawOpen)) - 0.3)
    #expect(mean(oo.map(\.jawOpen)) < mean(aa.map(\.jawOpen)) - 0.3)
    // "A:" starts the file at full loudness, like the release of a b: its first frame may still show the lips
    // parting (the learned model does that); after it the lips are apart (a trace of press as the pause nears).
    #expect(aa.dropFirst().allSatisfy { $0.lipPress < 0.1 } && ee.allSatisfy { $0.lipPress < 0.05 })
}

@Test(arguments: LipSyncModel.allCases)
func ooIsRoundedAndEeIsSpread(model: LipSyncModel) throws {
    let samples = try SpeechFixture.samples("speech_vowels")
    let phonemes = try SpeechFixture.phonemes("speech_vowels", total: samples.count)
    let all = LipSyncDriver.frames(samples, model: model)
    let ee = frames(of: try #require(phonemes.first { $0.name == "i:" }), in: all)
    let oo = frames(of: try #require(phonemes.first { $0.name == "u:" }), in: all)
    let aa = frames(of: try #require(phonemes.first { $0.name == "A:" }), in: all)
    #expect(mean(ee.map(\.lipSpread)) > 0.6)
    #expect(mean(oo.map(\.lipSpread)) < -0.2)
    #expect(mean(oo.map(\.lipSpread)) < mean(ee.map(\.lipSpread)) - 0.8)
    #expect(abs(mean(aa.map(\.lipSpread))) < 0.2)
}

@Test(arguments: LipSyncModel.allCases)
func lipsCloseOnMostBilabials(model: LipSyncModel) throws {
    let samples = try SpeechFixture.samples("speech_bilabial")
    let phonemes = try SpeechFixture.phonemes("speech_bilabial", total: samples.count)
    let all = LipSyncDriver.frames(samples, model: model)
    let bilabials = phonemes.filter { ["p", "b", "m"].contains($0.name) }
    // A bilabial counts as shown when a closed frame overlaps it, give or take one frame.
    func near(_ p: SpeechFixture.Phoneme, _ k: Int) -> Bool { 640 * k < p.end + 640 && 640 * k + 640 > p.start - 640 }
    let shown = bilabials.filter { p in all.indices.contains { k in isClosure(all[k]) && near(p, k) } }
    #expect(Double(shown.count) >= 0.8 * Double(bilabials.count), "\(shown.count) of \(bilabials.count)")
    // And the closures are mostly at bilabials, not everywhere.
    let closed = all.indices.filter { isClosure(all[$0]) }
    let atBilabials = closed.filter { k in bilabials.contains { near($0, k) } }
    #expect(Double(atBilabials.count) >= 0.7 * Double(closed.count), "\(atBilabials.count) of \(closed.count)")
    if model == .v1 { #expect(closed.count <= all.count / 3) }
    // Never closed well inside a vowel. espeak-ng marks an unvoiced stop at its release, so the silent closure
    // of a following p lies inside the vowel's label: two frames (80 ms) at its end are left out.
    let vowels = phonemes.filter { $0.name.first.map { "aAeEiIoOuUV03@".contains($0) } ?? false }
    for vowel in vowels {
        let first = (vowel.start + 639) / 640 + 1
        let last = vowel.end / 640 - 2
        guard first < last else { continue }
        #expect(!all[first..<last].contains(where: isClosure), "closed inside \(vowel.name) at \(vowel.start)")
    }
}

@Test(arguments: LipSyncModel.allCases)
func quietSpeechMovesTheMouthLikeLoudSpeech(model: LipSyncModel) throws {
    let loud = try SpeechFixture.samples("speech_bilabial")
    let quiet = scaled(loud, peakDBFS: -30)
    let a = LipSyncDriver.frames(loud, model: model)
    let b = LipSyncDriver.frames(quiet, model: model)
    #expect(a.count == b.count)
    let jawDifference = mean(zip(a, b).map { abs($0.jawOpen - $1.jawOpen) })
    #expect(jawDifference < 0.05)
    #expect(mean(b.map(\.jawOpen)) > 0.9 * mean(a.map(\.jawOpen)))
    let closuresLoud = a.filter(isClosure).count
    let closuresQuiet = b.filter(isClosure).count
    // The same closures, give or take a few frames that fall just either side of the closure threshold.
    #expect(abs(closuresLoud - closuresQuiet) <= max(3, closuresLoud / 6), "\(closuresLoud) against \(closuresQuiet)")
}

/// Silence, then "A:" starting exactly at frame 10.
private func vowelAfterSilence(model: LipSyncModel) throws -> (frames: [Articulation], onset: Int) {
    let vowels = try SpeechFixture.samples("speech_vowels")
    let onsetFrame = 10
    let audio = [Int16](repeating: 0, count: 640 * onsetFrame) + vowels[0..<6400]
    return (LipSyncDriver.frames(audio, model: model), onsetFrame)
}

@Test func v1MouthStartsOpeningBeforeTheVowelSounds() throws {
    // The look-ahead lets frame 9 start opening.
    let (all, onsetFrame) = try vowelAfterSilence(model: .v1)
    #expect(all[0..<(onsetFrame - 1)].allSatisfy { $0.jawOpen == 0 })
    #expect(all[onsetFrame - 1].jawOpen > 0.1)
    #expect(all[onsetFrame].jawOpen > 0.5)
}

@Test func learnedMouthStaysShutBeforeAVowelAndIsOpenFromItsSecondFrame() throws {
    // The vowel starts at full loudness, like the release of a b: its first frame may still show closed lips,
    // but the mouth is open (not pressed) from the next frame on and never opens before the sound.
    let (all, onsetFrame) = try vowelAfterSilence(model: .learned)
    #expect(all[0..<onsetFrame].allSatisfy { $0.jawOpen < 0.03 })
    #expect(all[(onsetFrame + 1)...].allSatisfy { $0.jawOpen > 0.5 && $0.lipPress < 0.1 })
}
