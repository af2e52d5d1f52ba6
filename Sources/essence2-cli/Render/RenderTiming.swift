import Essence2Runtime

/// The engine's fixed timing (see include/essence2.h).
enum RenderTiming {
    static let framesPerSecond = StreamFormat.framesPerSecond
    static let samplesPerFrame = StreamFormat.samplesPerFrame
    static let frameSeconds = 1 / Double(StreamFormat.framesPerSecond)
    /// Capacity of the engine's audio ring in samples; a single push may not be larger.
    static let ringSamples = StreamFormat.ringSamples

    /// Speech frames that `sampleCount` samples yield: one per started 40 ms.
    static func speechFrames(forSamples sampleCount: Int) -> Int {
        (sampleCount + samplesPerFrame - 1) / samplesPerFrame
    }

    /// x real time: seconds of video made per second of wall time.
    static func realTimeFactor(frames: Int, seconds: Double) -> Double {
        seconds > 0 ? Double(frames) * frameSeconds / seconds : 0
    }
}
