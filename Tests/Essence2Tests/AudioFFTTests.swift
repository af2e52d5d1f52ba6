import Glibc
import Testing
@testable import Essence2Runtime
@testable import Essence2Vision
@testable import Essence2Authoring

/// Deterministic pseudo-random numbers for tests (SplitMix64).
struct TestRandom {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in 0..<bound.
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    /// Uniform in -1...1.
    mutating func signed() -> Float { Float(next() >> 40) / Float(1 << 23) - 1 }
}

@Test func realFFTPowerSpectrumMatchesDirectDFT() {
    for log2Size in [2, 4, 9] {
        let n = 1 << log2Size
        var random = TestRandom(seed: UInt64(n))
        let input = (0..<n).map { _ in random.signed() }
        var fft = RealFFT(log2Size: log2Size)
        var power = [Float](repeating: 0, count: n / 2 + 1)
        input.withUnsafeBufferPointer { i in power.withUnsafeMutableBufferPointer { fft.powerSpectrum(of: i, into: $0) } }
        var largest: Double = 0
        var worst: Double = 0
        for k in 0...(n / 2) {
            var re = 0.0
            var im = 0.0
            for t in 0..<n {
                let angle = -2 * Double.pi * Double(k * t) / Double(n)
                re += Double(input[t]) * cos(angle)
                im += Double(input[t]) * sin(angle)
            }
            let expected = re * re + im * im
            largest = max(largest, expected)
            worst = max(worst, abs(expected - Double(power[k])))
        }
        #expect(worst <= 1e-4 * largest, "size \(n): error \(worst) of \(largest)")
    }
}

@Test func analyzerMeasuresLevelAndFormantRegionOfATone() {
    // A 700 Hz sine at half scale: mean power 0.125 (-9.03 dB), all of it in the 310-1000 Hz band.
    var buffer = SampleBuffer()
    let tone = (0..<2000).map { Int16((16384 * sin(2 * Double.pi * 700 * Double($0) / 16000)).rounded()) }
    tone.withUnsafeBufferPointer { buffer.append($0) }
    var analyzer = SpectralAnalyzer()
    let f = analyzer.analyze(buffer, start: 800, realEnd: buffer.end)
    #expect(abs(f.level - -9.03) < 0.3)
    #expect(abs(f.low - f.level) < 0.5)
    #expect(f.high < f.level - 40)
    #expect(abs(f.f1Proxy - 700) < 40)
    #expect(abs(f.zeroCrossingRate - 1400 / 16000) < 0.01)
}

@Test func analyzerTreatsAudioPastTheRealEndAsSilence() {
    var buffer = SampleBuffer()
    let loud = [Int16](repeating: 8000, count: 1000)
    loud.withUnsafeBufferPointer { buffer.append($0) }
    var analyzer = SpectralAnalyzer()
    #expect(analyzer.analyze(buffer, start: 0, realEnd: 0) == .silence)
    #expect(analyzer.analyze(buffer, start: -1000, realEnd: 1000) == .silence)
    #expect(analyzer.analyze(buffer, start: 0, realEnd: 1000).level > -20)
}
