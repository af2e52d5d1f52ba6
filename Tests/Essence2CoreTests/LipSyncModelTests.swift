import Glibc
import Testing
@testable import Essence2Core

/// Fixtures written by tools/lipsync/export.py from speech_bilabial.wav: Python's log-mel bands of every hop the
/// engine analyses, and the Python model's articulation of every frame.
enum LipSyncModelFixture {
    /// Rows of numbers of a fixture text file ('#' lines are comments).
    static func rows(_ name: String) throws -> [[Double]] {
        let bytes = try #require(SpeechFixture.bytes(ofFile: "\(SpeechFixture.directory)/\(name)"), "missing \(name)")
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n")
            .filter { !$0.hasPrefix("#") }
            .map { $0.split(separator: " ").compactMap { Double($0) } }
    }

    /// The engine's log-mel bands of hops 0 ..< `count` of `samples` (the whole audio buffered, nothing after it).
    static func bands(_ samples: [Int16], hops count: Int) -> [[Float]] {
        var buffer = SampleBuffer()
        samples.withUnsafeBufferPointer { buffer.append($0) }
        var analyzer = LogMelAnalyzer()
        var row = [Float](repeating: 0, count: LogMelAnalyzer.bandCount)
        return (0..<count).map { h in
            row.withUnsafeMutableBufferPointer {
                analyzer.analyze(buffer, start: 160 * h - 120, realEnd: samples.count, into: $0)
            }
            return row
        }
    }
}

@Test func logMelBandsMatchThePythonFeatures() throws {
    let samples = try SpeechFixture.samples("speech_bilabial")
    let expected = try LipSyncModelFixture.rows("lipsync_features.txt")
    #expect(expected.count == 4 * ((samples.count + 639) / 640) + 7)
    let actual = LipSyncModelFixture.bands(samples, hops: expected.count)
    var worst = 0.0
    for (a, e) in zip(actual, expected) {
        try #require(e.count == LogMelAnalyzer.bandCount)
        for (x, y) in zip(a, e) { worst = max(worst, abs(Double(x) - y)) }
    }
    // Float32 in Swift against float64 in NumPy, in dB.
    #expect(worst < 2e-3, "largest difference \(worst) dB")
}

@Test func silentWindowGivesTheFloorInEveryBand() {
    let bands = LipSyncModelFixture.bands([Int16](repeating: 0, count: 2000), hops: 3)
    #expect(bands.allSatisfy { $0.allSatisfy { $0 == -100 } })
}

@Test func learnedStreamMatchesThePythonModel() throws {
    let samples = try SpeechFixture.samples("speech_bilabial")
    let expected = try LipSyncModelFixture.rows("lipsync_model.txt")
    let frames = LipSyncDriver.frames(samples, model: .learned)
    #expect(frames.count == expected.count)
    var worst = 0.0
    for (a, e) in zip(frames, expected) {
        try #require(e.count == 3)
        worst = max(
            worst, abs(Double(a.jawOpen) - e[0]), abs(Double(a.lipSpread) - e[1]), abs(Double(a.lipPress) - e[2]))
    }
    #expect(worst < 1e-4, "largest difference \(worst)")
}

@Test func shippedWeightsDecodeWithTheirSizeAndHash() throws {
    let bytes = try #require(Base64.decode(ArticulationWeights.base64))
    #expect(bytes.count == ArticulationWeights.byteCount)
    #expect(bytes.count <= 2_000_000)
    #expect(SHA256.hex(SHA256.hash(bytes)) == ArticulationWeights.sha256)
    let network = try #require(ArticulationNetwork.decode(base64: ArticulationWeights.base64,
                                                          sha256: ArticulationWeights.sha256))
    #expect(network.bandCount == LogMelAnalyzer.bandCount)
    #expect(network.contextHops == network.pastHops + 4 + 7)
    #expect(ArticulationNetwork.shipped.layer1Weights == network.layer1Weights)
}

@Test func weightsWithAWrongHashOrDamagedBytesAreRefused() throws {
    let good = try #require(Base64.decode(ArticulationWeights.base64))
    let wrongHash = String(repeating: "0", count: 64)
    #expect(ArticulationNetwork.decode(base64: ArticulationWeights.base64, sha256: wrongHash) == nil)
    #expect(ArticulationNetwork(bytes: good) != nil)
    #expect(ArticulationNetwork(bytes: Array(good.dropLast(2))) == nil)
    #expect(ArticulationNetwork(bytes: good + [0, 0]) == nil)
    var badMagic = good
    badMagic[0] = UInt8(ascii: "X")
    #expect(ArticulationNetwork(bytes: badMagic) == nil)
    var badVersion = good
    badVersion[4] = 2
    #expect(ArticulationNetwork(bytes: badVersion) == nil)
    var badGeometry = good
    badGeometry[16] &+= 1  // contextHops no longer past + 4 + 7
    #expect(ArticulationNetwork(bytes: badGeometry) == nil)
    var notFinite = good
    notFinite[notFinite.count - 1] = 0x7C  // the last value becomes infinity
    notFinite[notFinite.count - 2] = 0x00
    #expect(ArticulationNetwork(bytes: notFinite) == nil)
    #expect(ArticulationNetwork(bytes: []) == nil)
}

@Test func base64DecodesStandardTextAndRefusesMalformedText() {
    #expect(Base64.decode("") == [])
    #expect(Base64.decode("Zg==") == Array("f".utf8))
    #expect(Base64.decode("Zm8=") == Array("fo".utf8))
    #expect(Base64.decode("Zm9vYmFy") == Array("foobar".utf8))
    #expect(Base64.decode("+/+/") == [0xFB, 0xFF, 0xBF])
    #expect(Base64.decode("Zm9") == nil)
    #expect(Base64.decode("Zm9v YmFy") == nil)
    #expect(Base64.decode("Zh==") == nil)  // non-zero padding bits
    #expect(Base64.decode("====") == nil)
}

@Test func halfPrecisionValuesDecodeExactly() {
    #expect(ArticulationNetwork.half(0x3C00) == 1)
    #expect(ArticulationNetwork.half(0xC000) == -2)
    #expect(ArticulationNetwork.half(0x3555) == Float(0.333251953125))
    #expect(ArticulationNetwork.half(0x0001) == Float(5.9604644775390625e-8))
    #expect(ArticulationNetwork.half(0x7BFF) == 65504)
    #expect(ArticulationNetwork.half(0x8000) == 0 && ArticulationNetwork.half(0x8000).sign == .minus)
    #expect(ArticulationNetwork.half(0x7C00) == .infinity)
    #expect(ArticulationNetwork.half(0x7E00).isNaN)
}

@Test func learnedModelIsTheDefaultAndV1StaysSelectable() throws {
    #expect(LipSyncStream().model == .learned)
    #expect(LipSyncStream(model: .v1).model == .v1)
    let speech = try SpeechFixture.samples("speech_bilabial")
    let learned = LipSyncDriver.frames(speech, model: .learned)
    let v1 = LipSyncDriver.frames(speech, model: .v1)
    #expect(learned.count == v1.count)
    #expect(learned != v1)
    #expect(LipSyncDriver.frames(speech) == learned)
    #expect(LipSyncDriver.frames(speech, model: .v1) == v1)
}

@Test func nonSpeechKeepsTheLearnedMouthNearlyStill() {
    let seconds = 3
    let n = 16000 * seconds
    func pcm(_ f: (Double) -> Double) -> [Int16] {
        (0..<n).map { Int16((f(Double($0) / 16000) * 32767).rounded()) }
    }
    let tone = pcm { 0.25 * sin(2 * Double.pi * 440 * $0) }
    let chord = pcm { t in [261.6, 329.6, 392.0].reduce(0) { $0 + 0.08 * sin(2 * Double.pi * $1 * t) } }
    var clicks = [Int16](repeating: 0, count: n)
    for start in stride(from: 0, to: n - 20, by: 1600) {
        for i in 0..<20 { clicks[start + i] = Int16(16000 * exp(-Double(i) / 4)) }
    }
    for (name, audio) in [("tone", tone), ("chord", chord), ("clicks", clicks)] {
        let frames = LipSyncDriver.frames(audio, model: .learned)
        let opening = frames.map { $0.jawOpen * (1 - $0.lipPress) }
        let mean = opening.reduce(0, +) / Float(opening.count)
        #expect(opening.allSatisfy { $0 < 0.1 }, "\(name) opens the mouth to \(opening.max() ?? 0)")
        #expect(mean < 0.02, "\(name) mean opening \(mean)")
    }
}
