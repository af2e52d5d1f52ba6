/// How soon speech shows: from the first audio pushed to the first speech frame.
struct BenchLatency: Codable {
    /// Unpaced, the whole speech pushed at once: wall seconds to the first speech frame.
    var unpacedSeconds: Double
    /// Unpaced, speech pushed 20 ms at a time: samples pushed before the first speech frame came.
    var unpacedSamples: Int
    /// Realtime pacing, speech streamed at real-time speed in 20 ms packets: wall seconds to the first
    /// speech frame handed out.
    var realtimeSeconds: Double
}
