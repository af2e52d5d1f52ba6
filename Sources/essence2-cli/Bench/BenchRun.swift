/// The figures of one bench process: one avatar size with one or four engines. Encoded as JSON by the
/// child process and decoded by the parent; every speed is a median over the repetitions.
struct BenchRun: Codable {
    /// The avatar canvas (FULL-mode frame size).
    var width: Int
    var height: Int
    var engines: Int
    var repetitions: Int
    /// Frames of one rendered reply (speech + easing to rest).
    var replyFrames: Int
    /// Unpaced speech: video seconds per wall second, all engines together.
    var speechRealTime: Double
    /// Unpaced speech: the same for each engine on its own clock (mean over engines of the median).
    var speechRealTimePerEngine: Double
    /// Unpaced idle frames, all engines together.
    var idleRealTime: Double
    var idleRealTimePerEngine: Double
    /// Resident memory after reading the avatar, before any engine (VmRSS), in bytes.
    var baselineBytes: Int
    /// Peak resident memory of the process (VmHWM), in bytes.
    var peakBytes: Int
    /// One-engine runs only: latencies and the frame copy floor.
    var latency: BenchLatency?
    /// One-engine runs only: time to copy one frame (memcpy of frameBytes), in seconds.
    var frameCopySeconds: Double?
}
