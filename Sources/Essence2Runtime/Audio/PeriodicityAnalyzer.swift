/// How periodic the audio around one hop is, 0 (noise, silence, several voices at once) ... 1 (one clean voice):
/// the learned model's periodicity input, computed exactly as tools/lipsync/features.py `periodicity` does.
///
/// The 512 samples (32 ms) that end where the hop's mel window ends are Hann-weighted; their autocorrelation
/// (a 1024-point FFT, its power spectrum, and the transform of that) is normalised by the window's own
/// autocorrelation, and the largest value at lags 40 ... 200 (400 Hz down to 80 Hz, the voice's pitch range) is
/// clipped to 0...1. A window with (almost) no energy reads 0.
///
/// One voice gives a clear peak at its pitch period; background babble, where several voices overlap, gives
/// lower and more scattered values, which helps the model keep the mouth still for speech that is not the talker's.
struct PeriodicityAnalyzer: Sendable {
    static let windowLength = 512
    static let shortestLag = 40
    static let longestLag = 200
    /// Below this windowed energy (a few samples of 1 LSB) the window counts as silent.
    static let silentEnergy: Float = 1e-7
    private static let fftLog2 = 10

    private var fft = RealFFT(log2Size: PeriodicityAnalyzer.fftLog2)
    private let window: [Float]
    /// The window's own autocorrelation over its value at lag 0, for lags 0 ... longestLag.
    private let windowCorrelation: [Float]
    /// The windowed samples, then zeros to the FFT size (only the first `windowLength` values are ever written).
    private var frame: [Float]
    private var power: [Float]
    private var spectrum: [Float]
    private var correlation: [Float]

    init() {
        let n = Self.windowLength
        let w = HannWindow.values(length: n)
        window = w.map { Float($0) }
        let energy = w.reduce(0) { $0 + $1 * $1 }
        windowCorrelation = (0...Self.longestLag).map { lag in
            Float((0..<(n - lag)).reduce(0) { $0 + w[$1] * w[$1 + lag] } / energy)
        }
        let size = 1 << Self.fftLog2
        frame = [Float](repeating: 0, count: size)
        power = [Float](repeating: 0, count: size / 2 + 1)
        spectrum = [Float](repeating: 0, count: size)
        correlation = [Float](repeating: 0, count: size / 2 + 1)
    }

    /// Periodicity of the `windowLength` samples that end at absolute position `end` of `samples`; audio at or
    /// after `realEnd` (and before the stream) is silence.
    mutating func analyze(_ samples: SampleBuffer, end: Int, realEnd: Int) -> Float {
        let n = Self.windowLength
        frame.withUnsafeMutableBufferPointer { frame in
            samples.read(from: end - n, realEnd: realEnd, into: UnsafeMutableBufferPointer(rebasing: frame[0..<n]))
            window.withUnsafeBufferPointer { w in
                for i in 0..<n { frame[i] *= w[i] }
            }
        }
        frame.withUnsafeBufferPointer { input in
            power.withUnsafeMutableBufferPointer { fft.powerSpectrum(of: input, into: $0) }
        }
        // The power spectrum as a whole, even sequence; its transform is the (circular, here linear) autocorrelation.
        let half = power.count - 1
        spectrum.withUnsafeMutableBufferPointer { full in
            power.withUnsafeBufferPointer { p in
                for k in 0...half { full[k] = p[k] }
                for k in 1..<half { full[full.count &- k] = p[k] }
            }
        }
        spectrum.withUnsafeBufferPointer { input in
            correlation.withUnsafeMutableBufferPointer { fft.realPart(of: input, into: $0) }
        }
        // The transform carries a factor of the FFT size, the same at every lag; windowed energy is r(0) / size.
        let r0 = correlation[0]
        guard r0 >= Self.silentEnergy * Float(frame.count) else { return 0 }
        var best: Float = 0
        windowCorrelation.withUnsafeBufferPointer { wc in
            correlation.withUnsafeBufferPointer { r in
                for lag in Self.shortestLag...Self.longestLag {
                    best = max(best, (r[lag] / r0) / wc[lag])
                }
            }
        }
        return min(best, 1)
    }
}
