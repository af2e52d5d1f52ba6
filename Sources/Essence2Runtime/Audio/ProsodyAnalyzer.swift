import Glibc

/// Loudness and pitch of each 40 ms frame (`SpeechCue`), from the frame's own 640 samples: what the head, brows
/// and eyes follow while the avatar speaks.
///
/// The level is the frame's RMS in dBFS. Pitch: the frame is halved to 8 kHz (pairs averaged), its normalised
/// autocorrelation is searched over lags of 20 ... 100 samples (400 Hz down to 80 Hz), and the frame counts as
/// voiced when the best value reaches `voicedCorrelation` and the level is above `quietLevel`. The shortest lag
/// within 90% of the best is taken, which keeps the estimate off the octave below. About 30 000 multiply-adds
/// per frame.
struct ProsodyAnalyzer: Sendable {
    /// Samples per frame (640 at 25 frames a second, 800 at 20).
    let frameLength: Int
    static let shortestLag = 20
    static let longestLag = 100
    /// Normalised autocorrelation at the pitch period from which a frame is voiced.
    static let voicedCorrelation: Float = 0.45
    /// Frames quieter than this (dBFS) are never voiced.
    static let quietLevel: Float = -60

    private var samples: [Float]
    private var half: [Float]
    private var scores: [Float]

    init(frameLength: Int = StreamFormat.samplesPerFrame) {
        self.frameLength = frameLength
        samples = [Float](repeating: 0, count: frameLength)
        half = [Float](repeating: 0, count: frameLength / 2)
        scores = [Float](repeating: 0, count: Self.longestLag + 1)
    }

    /// The cue of the frame of `frameLength` samples at absolute position `start` (audio at or after `realEnd`
    /// is silence).
    mutating func analyze(_ buffer: SampleBuffer, start: Int, realEnd: Int) -> SpeechCue {
        samples.withUnsafeMutableBufferPointer { buffer.read(from: start, realEnd: realEnd, into: $0) }
        return samples.withUnsafeBufferPointer { x in
            half.withUnsafeMutableBufferPointer { h in
                scores.withUnsafeMutableBufferPointer { Self.cue(of: x, halved: h, scores: $0) }
            }
        }
    }

    /// The cue of `x` (samples scaled to -1 ... 1), using `h` (half its length) and `scores` (`longestLag + 1`
    /// values) as scratch.
    static func cue(
        of x: UnsafeBufferPointer<Float>, halved h: UnsafeMutableBufferPointer<Float>,
        scores: UnsafeMutableBufferPointer<Float>
    ) -> SpeechCue {
        var energy: Float = 0
        for v in x { energy += v * v }
        let meanSquare = energy / Float(max(x.count, 1))
        guard meanSquare > 1e-10 else { return .silence }
        let level = max(10 * log10f(meanSquare), SpeechCue.floorLevel)
        guard level > quietLevel, h.count > longestLag * 2, scores.count > longestLag else { return SpeechCue(level: level, pitch: 0) }
        var mean: Float = 0
        for i in 0..<h.count {
            h[i] = 0.5 * (x[2 * i] + x[2 * i + 1])
            mean += h[i]
        }
        mean /= Float(h.count)
        for i in 0..<h.count { h[i] -= mean }
        let n = h.count
        var best: Float = 0
        for lag in shortestLag...longestLag {
            var r: Float = 0, e0: Float = 0, e1: Float = 0
            for i in 0..<(n - lag) {
                let a = h[i], b = h[i + lag]
                r += a * b
                e0 += a * a
                e1 += b * b
            }
            let score = e0 > 0 && e1 > 0 ? r / (e0 * e1).squareRoot() : 0
            scores[lag] = score
            best = max(best, score)
        }
        guard best >= voicedCorrelation else { return SpeechCue(level: level, pitch: 0) }
        var chosen = longestLag
        for lag in shortestLag...longestLag where scores[lag] >= 0.9 * best {
            // A local maximum near the best: the first one is the period.
            let left = lag > shortestLag ? scores[lag - 1] : -1, right = lag < longestLag ? scores[lag + 1] : -1
            if scores[lag] >= left && scores[lag] >= right {
                chosen = lag
                break
            }
        }
        let rate = Float(StreamFormat.sampleRate) / 2
        return SpeechCue(level: level, pitch: rate / Float(chosen))
    }
}
