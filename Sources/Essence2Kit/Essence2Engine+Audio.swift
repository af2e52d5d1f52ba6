import Essence2Runtime

extension Essence2Engine {
    /// Queues speech of the current reply (or starts a reply): 16 kHz mono samples in -1...1 (values beyond are
    /// clipped; NaN counts as silence). Never blocks: what the engine cannot take yet waits and is pushed as
    /// frames are taken.
    public func feed(_ samples: [Float]) {
        feedConverted(samples.map(Self.int16))
    }

    /// Queues speech at any sample rate (1 kHz ... 384 kHz, mono); the library resamples it to 16 kHz, carrying
    /// its filter state from one call to the next (so chunks join seamlessly). A new rate starts a new filter.
    public func feed(_ samples: [Float], sampleRate: Double) {
        let rate = Int(sampleRate.isFinite ? sampleRate.rounded() : 0)
        if rate == StreamFormat.sampleRate {
            flushResampler()
            feed(samples)
            return
        }
        let converted = state.withLock { s -> [Int16]? in
            var output: [Float] = []
            if let resampler = s.resampler, resampler.inputRate != rate {
                s.resampler?.flush(into: &output)
                s.resampler = nil
            }
            if s.resampler == nil { s.resampler = StreamResampler(inputRate: rate) }
            guard s.resampler != nil else { return nil }
            samples.withUnsafeBufferPointer { s.resampler?.process($0, into: &output) }
            return output.map(Self.int16)
        }
        // A rate the resampler cannot take is dropped as silence rather than fed at the wrong speed.
        feedConverted(converted ?? [])
    }

    /// The current reply's audio is complete: what was fed renders, then the face eases to rest at once.
    public func flushTail() {
        flushResampler()
        state.withLock { s in
            guard !s.isShutDown else { return }
            s.feed.appendEnd()
            s.feed.pump(into: engine)
        }
    }

    /// Barge-in: drops the speech not yet shown, fed or queued; the face eases to rest from the frame last shown.
    public func interrupt() {
        state.withLock { s in
            s.feed.removeAll()
            s.resampler = nil
            s.ready.removeAll { $0.isSpeech }
        }
        engine.reset()
    }

    // MARK: Inside

    private func feedConverted(_ samples: [Int16]) {
        guard !samples.isEmpty else { return }
        state.withLock { s in
            guard !s.isShutDown else { return }
            s.feed.append(samples)
            s.feed.pump(into: engine)
        }
    }

    /// Emits what the resampler still holds (at the end of a reply or a change to 16 kHz input).
    private func flushResampler() {
        let tail = state.withLock { s -> [Int16] in
            guard var resampler = s.resampler else { return [] }
            var output: [Float] = []
            resampler.flush(into: &output)
            s.resampler = nil
            return output.map(Self.int16)
        }
        feedConverted(tail)
    }

    /// -1...1 to int16, clipped; NaN is silence.
    static func int16(_ value: Float) -> Int16 {
        guard !value.isNaN else { return 0 }
        return Int16((min(max(value, -1), 1) * 32767).rounded())
    }
}
