import Essence2Runtime
import Glibc

/// Channel mixing and whole-clip resampling for the command's audio input. The float-to-int16 rule is the
/// runtime's `SampleConversion` (one rule for the library, the Kit and the command).
enum AudioMixing {
    /// `samples` at `rate` Hz as 16 kHz samples (the library's own resampler; 16 kHz comes back unchanged).
    static func resample(_ samples: [Int16], from rate: Int) -> [Int16] {
        guard rate != StreamFormat.sampleRate, var resampler = StreamResampler(inputRate: rate) else { return samples }
        var output: [Float] = []
        samples.map(SampleConversion.float).withUnsafeBufferPointer { resampler.process($0, into: &output) }
        resampler.flush(into: &output)
        return output.map(SampleConversion.int16)
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
