/// What became of audio pushed into an engine: all of it queued, or none of it.
package enum PushOutcome: Sendable, Equatable {
    /// Every sample was queued.
    case queued
    /// Nothing was queued: the ring already holds `buffered` samples and the push does not fit beside them.
    case ringFull(buffered: Int)
    /// Nothing was queued: the engine was stopped (`be_essence2_quiesce_all`).
    case stopped
}
