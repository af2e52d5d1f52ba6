import Glibc

/// Turns one 25 ms window (400 samples at 16 kHz) into `SpeechFeatures`, with a Hann window and a 512-point FFT.
struct SpectralAnalyzer: Sendable {
    /// Samples in one analysis window (25 ms).
    static let windowLength = 400
    /// Samples between consecutive windows (10 ms, so features come at 100 Hz).
    static let hopLength = 160
    private static let fftLog2 = 9

    private var fft = RealFFT(log2Size: SpectralAnalyzer.fftLog2)
    private let window: [Float]
    /// 2 / (N Σw²): turns a sum of one-sided |X|² into mean power of the unwindowed signal.
    private let powerScale: Float
    private var frame: [Float]
    private var power: [Float]

    init() {
        let n = Self.windowLength
        window = (0..<n).map { Float(0.5 - 0.5 * cos(2 * Double.pi * (Double($0) + 0.5) / Double(n))) }
        let energy = window.reduce(0) { $0 + $1 * $1 }
        powerScale = 2 / (Float(1 << Self.fftLog2) * energy)
        frame = [Float](repeating: 0, count: 1 << Self.fftLog2)
        power = [Float](repeating: 0, count: (1 << Self.fftLog2) / 2 + 1)
    }

    /// Features of the window of `windowLength` samples starting at absolute position `start` of `samples`;
    /// audio at or after `realEnd` (and before the stream) counts as silence.
    mutating func analyze(_ samples: SampleBuffer, start: Int, realEnd: Int) -> SpeechFeatures {
        let n = Self.windowLength
        var sumSquares: Float = 0
        var crossings = 0
        frame.withUnsafeMutableBufferPointer { frame in
            samples.read(from: start, realEnd: realEnd, into: UnsafeMutableBufferPointer(rebasing: frame[0..<n]))
            window.withUnsafeBufferPointer { w in
                var previousNegative = frame[0] < 0
                for i in 0..<n {
                    let x = frame[i]
                    let negative = x < 0
                    if negative != previousNegative { crossings &+= 1 }
                    previousNegative = negative
                    let y = x * w[i]
                    sumSquares += y * y
                    frame[i] = y
                }
            }
            for i in n..<frame.count { frame[i] = 0 }
        }
        let scale = powerScale
        frame.withUnsafeBufferPointer { input in
            power.withUnsafeMutableBufferPointer { power in
                fft.powerSpectrum(of: input, into: power)
            }
        }
        return power.withUnsafeBufferPointer { p in
            func bandSum(_ lo: Int, _ hi: Int) -> Float {
                var s: Float = 0
                for k in lo..<hi { s += p[k] }
                return s * scale
            }
            func centroid(_ lo: Int, _ hi: Int) -> Float {
                var s: Float = 0
                var m: Float = 0
                for k in lo..<hi {
                    s += p[k]
                    m += p[k] * Float(k)
                }
                return s > 0 ? m / s * Self.binHz : 0
            }
            return SpeechFeatures(
                level: Self.decibels(sumSquares * scale * Float(1 << Self.fftLog2) / 2),
                voiceBar: Self.decibels(bandSum(2, 10)),
                low: Self.decibels(bandSum(10, 32)),
                mid: Self.decibels(bandSum(32, 64)),
                high: Self.decibels(bandSum(64, 112)),
                air: Self.decibels(bandSum(112, 257)),
                f1Proxy: centroid(6, 32),
                f2Proxy: centroid(32, 96),
                zeroCrossingRate: Float(crossings) / Float(n - 1))
        }
    }

    private static let binHz: Float = 16000 / Float(1 << fftLog2)

    /// 10·log10(power), floored at -100 dB.
    static func decibels(_ power: Float) -> Float {
        10 * log10f(max(power, 1e-10))
    }
}
