import Glibc

/// Conversions between float samples (full scale ±1) and 16-bit samples.
enum SampleConversion {
    /// Rounds to 16 bits with clipping; the inverse of libsndfile's normalised reading (x / 32768), so
    /// 16-bit input comes back bit-exact.
    static func int16(_ value: Float) -> Int16 {
        guard value.isFinite else { return 0 }
        let scaled = (value * 32768).rounded(.toNearestOrEven)
        if scaled >= 32767 { return 32767 }
        if scaled <= -32768 { return -32768 }
        return Int16(scaled)
    }

    /// Averages `channels` interleaved channels of `frames` frames into `mono`, which must hold `frames` values.
    static func downmix(_ interleaved: UnsafeBufferPointer<Float>, channels: Int, frames: Int,
                        into mono: UnsafeMutableBufferPointer<Float>) {
        if channels == 1 {
            for i in 0..<frames { mono[i] = interleaved[i] }
            return
        }
        let scale = 1 / Float(channels)
        for i in 0..<frames {
            var sum: Float = 0
            let base = i * channels
            for c in 0..<channels { sum += interleaved[base + c] }
            mono[i] = sum * scale
        }
    }
}
