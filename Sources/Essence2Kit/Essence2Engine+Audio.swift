import Essence2Runtime

extension Essence2Engine {
    /// Queues speech of the current reply (or starts a reply): 16 kHz mono samples in -1...1 (clipped; NaN is
    /// silence). Never blocks: what the engine's ring cannot take yet waits inside the engine and goes in as
    /// frames are taken (up to 10 minutes; past that a feed is dropped).
    public func feed(_ samples: [Float]) {
        feed(samples, sampleRate: Double(StreamFormat.sampleRate))
    }

    /// Queues speech at any sample rate (1 kHz ... 384 kHz, mono); the engine resamples it to 16 kHz, carrying
    /// its filter from one call to the next (so chunks join seamlessly); a new rate starts a new filter. A rate
    /// outside that range is dropped (nothing is fed at the wrong speed). Beyond the reference.
    public func feed(_ samples: [Float], sampleRate: Double) {
        let rate = sampleRate.isFinite && abs(sampleRate) < 1e9 ? Int(sampleRate.rounded()) : 0
        _ = samples.withUnsafeBufferPointer { engine.feed($0, sampleRate: rate) }
    }

    /// Queues 16-bit speech at any sample rate, as `feed(_:sampleRate:)`. Beyond the reference.
    public func feed(_ samples: [Int16], sampleRate: Double = 16000) {
        let rate = sampleRate.isFinite && abs(sampleRate) < 1e9 ? Int(sampleRate.rounded()) : 0
        _ = samples.withUnsafeBufferPointer { engine.feed($0, sampleRate: rate) }
    }

    /// The current reply's audio is complete: what was fed renders, then the face eases to rest at once.
    public func flushTail() {
        engine.endUtterance()
    }

    /// Barge-in: drops the speech not yet shown, fed or queued; the face eases to rest from the frame last shown.
    public func interrupt() {
        engine.reset()
    }
}
