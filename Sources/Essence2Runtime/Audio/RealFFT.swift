import Glibc

/// A fixed-size radix-2 FFT of real input, computed as a half-size complex FFT plus the usual split step.
///
/// Exposes the power spectrum (the analyses' band energies) and the real part of the spectrum (the inverse
/// transform of a power spectrum, for autocorrelation).
struct RealFFT: Sendable {
    /// Number of real input points (a power of two, at least 4).
    let size: Int
    private let half: Int
    private let bitReverse: [Int]
    /// cos/sin(2πk/half) for k < half/2: twiddles of the complex FFT.
    private let cosHalf: [Float]
    private let sinHalf: [Float]
    /// cos/sin(2πk/size) for k ≤ half: twiddles of the split step.
    private let cosFull: [Float]
    private let sinFull: [Float]
    private var re: [Float]
    private var im: [Float]

    /// An FFT of `1 << log2Size` real points; `log2Size` is a compile-time constant of the caller (2...16).
    init(log2Size: Int) {
        precondition(log2Size >= 2 && log2Size <= 16, "RealFFT size out of range")
        size = 1 << log2Size
        half = size / 2
        let bits = log2Size - 1
        var reverse = [Int](repeating: 0, count: half)
        for i in 0..<half {
            var r = 0
            for b in 0..<bits where i & (1 << b) != 0 { r |= 1 << (bits - 1 - b) }
            reverse[i] = r
        }
        bitReverse = reverse
        let h = half
        cosHalf = (0..<max(h / 2, 1)).map { Float(cos(2 * Double.pi * Double($0) / Double(h))) }
        sinHalf = (0..<max(h / 2, 1)).map { Float(sin(2 * Double.pi * Double($0) / Double(h))) }
        let n = size
        cosFull = (0...h).map { Float(cos(2 * Double.pi * Double($0) / Double(n))) }
        sinFull = (0...h).map { Float(sin(2 * Double.pi * Double($0) / Double(n))) }
        re = [Float](repeating: 0, count: h)
        im = [Float](repeating: 0, count: h)
    }

    /// |X[k]|² for k = 0...size/2 of the DFT X of `input` (exactly `size` values) into `power` (`size/2 + 1` values).
    mutating func powerSpectrum(of input: UnsafeBufferPointer<Float>, into power: UnsafeMutableBufferPointer<Float>) {
        precondition(input.count == size && power.count == half + 1, "RealFFT buffer sizes")
        transform(input) { k, xr, xi in power[k] = xr * xr + xi * xi }
    }

    /// The real parts Re X[k] for k = 0...size/2 of the DFT X of `input` (exactly `size` values) into `output`
    /// (`size/2 + 1` values). For an even input (x[n] = x[size - n]) the DFT is real, so this is all of it.
    mutating func realPart(of input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) {
        precondition(input.count == size && output.count == half + 1, "RealFFT buffer sizes")
        transform(input) { k, xr, _ in output[k] = xr }
    }

    /// Computes X[k] for k = 0...size/2 and hands each to `emit(k, re, im)`.
    private mutating func transform(
        _ input: UnsafeBufferPointer<Float>, _ emit: (Int, Float, Float) -> Void
    ) {
        let h = half
        re.withUnsafeMutableBufferPointer { re in
            im.withUnsafeMutableBufferPointer { im in
                bitReverse.withUnsafeBufferPointer { rev in
                    for n in 0..<h {
                        re[rev[n]] = input[2 &* n]
                        im[rev[n]] = input[2 &* n &+ 1]
                    }
                }
                cosHalf.withUnsafeBufferPointer { cw in
                    sinHalf.withUnsafeBufferPointer { sw in
                        var length = 2
                        while length <= h {
                            let span = length / 2
                            let step = h / length
                            var blockStart = 0
                            while blockStart < h {
                                for k in 0..<span {
                                    let wr = cw[k &* step]
                                    let wi = -sw[k &* step]
                                    let a = blockStart &+ k
                                    let b = a &+ span
                                    let tr = re[b] * wr - im[b] * wi
                                    let ti = re[b] * wi + im[b] * wr
                                    re[b] = re[a] - tr
                                    im[b] = im[a] - ti
                                    re[a] += tr
                                    im[a] += ti
                                }
                                blockStart += length
                            }
                            length *= 2
                        }
                    }
                }
                // Split step: X[k] = E[k] + e^{-2πik/N} O[k], with E, O the spectra of the even and odd samples.
                cosFull.withUnsafeBufferPointer { c in
                    sinFull.withUnsafeBufferPointer { s in
                        for k in 0...h {
                            let a = k == h ? 0 : k
                            let b = k == 0 ? 0 : h &- k
                            let er = (re[a] + re[b]) * 0.5
                            let ei = (im[a] - im[b]) * 0.5
                            let or = (im[a] + im[b]) * 0.5
                            let oi = (re[b] - re[a]) * 0.5
                            let xr = er + c[k] * or + s[k] * oi
                            let xi = ei + c[k] * oi - s[k] * or
                            emit(k, xr, xi)
                        }
                    }
                }
            }
        }
    }
}
