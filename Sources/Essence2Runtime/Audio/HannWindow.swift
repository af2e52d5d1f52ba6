import Glibc

/// The periodic-sampled Hann window both analyzers use: w[n] = 0.5 − 0.5 cos(2π(n + ½)/length), in Double so
/// that sums over it (energies, autocorrelations) are computed before rounding to Float.
enum HannWindow {
    static func values(length n: Int) -> [Double] {
        (0..<n).map { 0.5 - 0.5 * cos(2 * Double.pi * (Double($0) + 0.5) / Double(n)) }
    }
}
