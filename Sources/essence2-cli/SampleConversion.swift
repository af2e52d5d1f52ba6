import Essence2Runtime
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

    /// `samples` at `rate` Hz as 16 kHz samples (the library's own resampler; 16 kHz comes back unchanged).
    static func resample(_ samples: [Int16], from rate: Int) -> [Int16] {
        guard rate != StreamFormat.sampleRate, var resampler = StreamResampler(inputRate: rate) else { return samples }
        var output: [Float] = []
        samples.map { Float($0) / 32768 }.withUnsafeBufferPointer { resampler.process($0, into: &output) }
        resampler.flush(into: &output)
        return output.map(int16)
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
