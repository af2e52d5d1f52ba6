/// The per-model half of a `LipSyncStream`: analyses 10 ms hops of audio as they become final and turns the hops
/// around a 40 ms frame into its `Articulation`.
///
/// Hop `n`'s 25 ms window starts at absolute sample 160n - 120. Frame hops come four to a frame; a frame whose
/// first hop is `f` reads hops up to `f + frameHops + aheadHops - 1`, and the stream commits every hop in order
/// before asking for a frame, so a pipeline's state depends only on the audio.
protocol ArticulationPipeline: Sendable {
    /// Takes in hop `n` (the next hop, in order), all of whose audio is real.
    mutating func commit(hop n: Int, samples: SampleBuffer, start: Int, realEnd: Int)

    /// Articulation of the frame whose first hop is `firstHop`. Hops from `committedHops` on are not committed
    /// (only when flushing): the pipeline analyses them provisionally from silence-padded audio, their windows
    /// starting at `nextHopStart`, `nextHopStart + 160`, ..., and remembers nothing of them.
    mutating func frame(
        firstHop: Int, committedHops: Int, samples: SampleBuffer, nextHopStart: Int, realEnd: Int
    ) -> Articulation

    /// A frame with no audio: the mouth eases towards rest.
    mutating func hold() -> Articulation
}

/// Hop geometry shared by both pipelines.
enum ArticulationHops {
    /// Hops in one 40 ms frame.
    static let frameHops = 4
    /// Hops of look-ahead after the frame's last hop (70 ms; with the 25 ms window, 77.5 ms past the frame).
    static let aheadHops = 7
}
