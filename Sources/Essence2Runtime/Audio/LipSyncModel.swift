/// Which audio-to-articulation mapping a `LipSyncStream` uses.
package enum LipSyncModel: Int32, Sendable, CaseIterable {
    /// The learned model (the default).
    case learned = 0
    /// Version 1: the hand-tuned mapping from loudness and spectral cues (`ArticulationMapper`), kept for
    /// comparison.
    case v1 = 1
}
