/// The engine's fixed timing (see include/essence2.h).
enum RenderTiming {
    static let framesPerSecond = 25
    static let samplesPerFrame = 640
    static let frameSeconds = 0.04
    /// Capacity of the engine's audio ring in samples; a single push may not be larger.
    static let ringSamples = 256_000

    /// Speech frames that `sampleCount` samples yield: one per started 40 ms.
    static func speechFrames(forSamples sampleCount: Int) -> Int {
        (sampleCount + samplesPerFrame - 1) / samplesPerFrame
    }

    /// x real time: seconds of video made per second of wall time.
    static func realTimeFactor(frames: Int, seconds: Double) -> Double {
        seconds > 0 ? Double(frames) * frameSeconds / seconds : 0
    }
}
