import Glibc

/// Turns one 25 ms window (400 samples at 16 kHz) into `bandCount` log-mel band energies in dB and their broadband
/// level: the learned model's features, computed exactly as tools/lipsync/features.py does.
///
/// Hann window (as `SpectralAnalyzer`), 512-point FFT, one-sided power scaled to the mean power of the unwindowed
/// signal, 32 triangular bands on the HTK mel scale from 60 Hz to 7600 Hz, 10·log10(max(energy, 1e-10)); the level
/// is 10·log10 of the sum of the floored band energies.
struct LogMelAnalyzer: Sendable {
    /// Mel bands per hop.
    static let bandCount = 32
    static let windowLength = 400
    static let hopLength = 160
    private static let fftLog2 = 9
    private static let lowHz = 60.0
    private static let highHz = 7600.0
    /// Band energies are floored here before the logarithm (-100 dB).
    static let floorPower: Float = 1e-10

    /// One triangular filter: its first FFT bin and the weights from there on.
    private struct Band: Sendable {
        var first: Int
        var weights: [Float]
    }

    private var fft = RealFFT(log2Size: LogMelAnalyzer.fftLog2)
    private let window: [Float]
    private let powerScale: Float
    private let bands: [Band]
    private var frame: [Float]
    private var power: [Float]

    init() {
        let n = Self.windowLength
        let w = HannWindow.values(length: n)
        window = w.map { Float($0) }
        let size = 1 << Self.fftLog2
        powerScale = Float(2 / (Double(size) * w.reduce(0) { $0 + $1 * $1 }))
        func mel(_ f: Double) -> Double { 2595 * log10(1 + f / 700) }
        func hz(_ m: Double) -> Double { 700 * (pow(10, m / 2595) - 1) }
        let lo = mel(Self.lowHz)
        let hi = mel(Self.highHz)
        let edges = (0...(Self.bandCount + 1)).map {
            hz(lo + (hi - lo) * Double($0) / Double(Self.bandCount + 1))
        }
        let binHz = 16000 / Double(size)
        bands = (0..<Self.bandCount).map { b in
            let (l, c, h) = (edges[b], edges[b + 1], edges[b + 2])
            var first = -1
            var weights: [Float] = []
            for k in 0...(size / 2) {
                let f = Double(k) * binHz
                let v = max(0, min((f - l) / (c - l), (h - f) / (h - c)))
                if v > 0 {
                    if first < 0 { first = k }
                    weights.append(Float(v))
                } else if first >= 0 {
                    break
                }
            }
            return Band(first: max(first, 0), weights: weights)
        }
        frame = [Float](repeating: 0, count: size)
        power = [Float](repeating: 0, count: size / 2 + 1)
    }

    /// Band energies in dB of the window of `windowLength` samples starting at absolute position `start` of
    /// `samples` into `output` (`bandCount` values); audio at or after `realEnd` (and before the stream) is silence.
    /// Returns the broadband level in dB.
    @discardableResult
    mutating func analyze(
        _ samples: SampleBuffer, start: Int, realEnd: Int, into output: UnsafeMutableBufferPointer<Float>
    ) -> Float {
        let n = Self.windowLength
        frame.withUnsafeMutableBufferPointer { frame in
            samples.read(from: start, realEnd: realEnd, into: UnsafeMutableBufferPointer(rebasing: frame[0..<n]))
            window.withUnsafeBufferPointer { w in
                for i in 0..<n { frame[i] *= w[i] }
            }
            for i in n..<frame.count { frame[i] = 0 }
        }
        frame.withUnsafeBufferPointer { input in
            power.withUnsafeMutableBufferPointer { power in
                fft.powerSpectrum(of: input, into: power)
            }
        }
        let scale = powerScale
        var total: Float = 0
        power.withUnsafeBufferPointer { p in
            for (b, band) in bands.enumerated() {
                var sum: Float = 0
                band.weights.withUnsafeBufferPointer { w in
                    for i in 0..<w.count { sum += w[i] * p[band.first &+ i] }
                }
                let energy = max(sum * scale, Self.floorPower)
                total += energy
                output[b] = 10 * log10f(energy)
            }
        }
        return 10 * log10f(total)
    }
}
