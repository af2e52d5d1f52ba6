import Essence2Runtime

/// The engine's timing (see include/essence2.h and include/expression2.h): 25 frames a second of 640 samples for
/// a photoreal avatar, 20 of 800 for a character. Functions take the avatar's cadence; Essence 2's is the
/// default.
enum RenderTiming {
    /// Speech frames that `sampleCount` samples yield: one per started frame period.
    static func speechFrames(forSamples sampleCount: Int, cadence: FrameCadence = .essence2) -> Int {
        (sampleCount + cadence.samplesPerFrame - 1) / cadence.samplesPerFrame
    }

    /// x real time: seconds of video made per second of wall time.
    static func realTimeFactor(frames: Int, seconds: Double, cadence: FrameCadence = .essence2) -> Double {
        seconds > 0 ? Double(frames) / Double(cadence.framesPerSecond) / seconds : 0
    }
}
