import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import Essence2Runtime

/// The library's own resampler (feed at any rate): rates, lengths, frequency and level kept, chunking-proof.
@Suite struct StreamResamplerTests {
    static func sine(rate: Int, hertz: Double, seconds: Double, amplitude: Float = 0.5) -> [Float] {
        (0..<Int(Double(rate) * seconds)).map { amplitude * Float(sin(2 * .pi * hertz * Double($0) / Double(rate))) }
    }

    static func resample(_ input: [Float], from rate: Int, chunk: Int) -> [Float] {
        var resampler = StreamResampler(inputRate: rate)!
        var output: [Float] = []
        var start = 0
        while start < input.count {
            let end = min(input.count, start + chunk)
            input[start..<end].withUnsafeBufferPointer { resampler.process($0, into: &output) }
            start = end
        }
        resampler.flush(into: &output)
        return output
    }

    /// Zero crossings upward per second, over the middle of the signal (edges left out).
    static func frequency(_ x: [Float], rate: Int) -> Double {
        let part = x[(x.count / 10)..<(x.count * 9 / 10)]
        var crossings = 0
        var previous = part.first ?? 0
        for value in part.dropFirst() {
            if previous < 0 && value >= 0 { crossings += 1 }
            previous = value
        }
        return Double(crossings) * Double(rate) / Double(part.count)
    }

    static func rms(_ x: [Float]) -> Double {
        let part = x[(x.count / 10)..<(x.count * 9 / 10)]
        return sqrt(part.reduce(0) { $0 + Double($1) * Double($1) } / Double(part.count))
    }

    @Test(arguments: [8_000, 22_050, 24_000, 44_100, 48_000, 96_000])
    func aToneKeepsItsFrequencyLevelAndLengthAt16kHz(rate: Int) {
        let input = Self.sine(rate: rate, hertz: 1_000, seconds: 1.5)
        let output = Self.resample(input, from: rate, chunk: 4_410)
        let expected = Int((Int64(input.count) * 16_000 + Int64(rate) - 1) / Int64(rate))
        #expect(output.count == expected)
        #expect(abs(Self.frequency(output, rate: 16_000) - 1_000) < 5)
        #expect(abs(Self.rms(output) - 0.5 / 2.0.squareRoot()) < 0.01)
    }

    @Test func tonesAboveTheNewNyquistAreFilteredOut() {
        // 11 kHz at 48 kHz is above 8 kHz: it must nearly vanish (it would alias to 5 kHz otherwise).
        let output = Self.resample(Self.sine(rate: 48_000, hertz: 11_000, seconds: 1), from: 48_000, chunk: 1_000)
        #expect(Self.rms(output) < 0.005)
    }

    @Test func theOutputDoesNotDependOnHowTheInputIsSplit() {
        let input = Self.sine(rate: 44_100, hertz: 440, seconds: 0.7)
        let whole = Self.resample(input, from: 44_100, chunk: input.count)
        for chunk in [1, 7, 441, 1_024, 9_999] {
            #expect(Self.resample(input, from: 44_100, chunk: chunk) == whole)
        }
    }

    @Test func sixteenKilohertzPassesThroughUnchangedInShape() {
        let input = Self.sine(rate: 16_000, hertz: 300, seconds: 0.5)
        let output = Self.resample(input, from: 16_000, chunk: 333)
        #expect(output.count == input.count)
        let worst = zip(input, output).dropFirst(100).dropLast(100).map { abs($0 - $1) }.max() ?? 1
        #expect(worst < 0.01)
    }

    @Test func ratesOutsideTheRangeAreRefused() {
        #expect(StreamResampler(inputRate: 0) == nil)
        #expect(StreamResampler(inputRate: 999) == nil)
        #expect(StreamResampler(inputRate: 1_000_000) == nil)
        #expect(StreamResampler(inputRate: 44_100, outputRate: -1) == nil)
    }
}
