/// Stateless pseudo-random numbers: a SplitMix64 hash of (seed, stream, index), so any value can be computed
/// on its own, in any order, with the same result.
enum SeededNoise {
    static func hash(_ seed: UInt64, _ stream: UInt64, _ index: UInt64) -> UInt64 {
        var z = seed &+ 0x9E37_79B9_7F4A_7C15 &* (stream &* 0x1_0000_0001 &+ index &+ 1)
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    static func unit(_ seed: UInt64, _ stream: UInt64, _ index: UInt64) -> Double {
        Double(hash(seed, stream, index) >> 11) * (1.0 / 9_007_199_254_740_992.0)
    }
}
