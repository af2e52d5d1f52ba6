/// What became of audio fed to an engine (`Engine.feed`).
package enum FeedOutcome: Sendable, Equatable {
    /// Queued, in order after what was fed before.
    case queued
    /// Nothing was queued: the sample rate is outside what the resampler takes.
    case unsupportedRate(Int)
    /// Nothing was queued: the samples would bring the audio waiting beyond the ring past the limit.
    case overLimit(pending: Int)
    /// Nothing was queued: the engine was stopped.
    case stopped
}
