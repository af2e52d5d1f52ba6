/// Speech fed to an engine that its ring cannot take yet, in order, with the ends of replies between, and the
/// resampler that brings other rates to 16 kHz. Feeding never blocks and never refuses for a full ring: what
/// does not fit waits here and goes into the ring as frames are taken (`pump`). One per engine, behind its own
/// lock (taken before the engine state's, never after).
struct AudioFeed {
    private enum Item {
        case samples([Int16])
        /// The reply's audio is complete once everything before it is in the ring.
        case end
    }

    /// At most this many 16 kHz samples wait beyond the ring (10 minutes); a feed past it is refused whole.
    static let limit = 10 * 60 * StreamFormat.sampleRate

    private var items: [Item] = []
    private var head = 0
    /// Samples of the first item already pushed.
    private var offset = 0
    /// Samples waiting in all.
    private(set) var pendingSamples = 0
    /// Input at another rate than 16 kHz: its filter, carried from one feed to the next.
    private var resampler: StreamResampler?

    /// Audio (or an end) waits to go into the ring.
    var hasQueued: Bool { head < items.count }
    /// Input at another rate is being resampled: the filter holds samples not yet out.
    var isResampling: Bool { resampler != nil }

    /// Queues 16-bit samples at `rate` Hz (16 kHz goes in as it is).
    mutating func append(_ samples: UnsafeBufferPointer<Int16>, rate: Int) -> FeedOutcome {
        if rate == StreamFormat.sampleRate {
            flushResampler()
            return appendConverted(Array(samples))
        }
        var floats = [Float](repeating: 0, count: samples.count)
        for i in 0..<samples.count { floats[i] = SampleConversion.float(samples[i]) }
        return floats.withUnsafeBufferPointer { append($0, rate: rate) }
    }

    /// Queues float samples (-1...1, clipped; NaN and infinities are silence) at `rate` Hz.
    mutating func append(_ samples: UnsafeBufferPointer<Float>, rate: Int) -> FeedOutcome {
        guard StreamResampler.rates.contains(rate) else { return .unsupportedRate(rate) }
        if rate == StreamFormat.sampleRate {
            flushResampler()
            return appendConverted(samples.map(SampleConversion.int16))
        }
        // Refuse before the filter takes anything in, so a refused feed leaves no trace.
        let expected = (Int64(samples.count) * Int64(StreamFormat.sampleRate) + Int64(rate) - 1) / Int64(rate)
        guard Int64(pendingSamples) + expected <= Int64(Self.limit) else { return .overLimit(pending: pendingSamples) }
        if let current = resampler, current.inputRate != rate { flushResampler() }
        if resampler == nil { resampler = StreamResampler(inputRate: rate) }
        var output: [Float] = []
        resampler?.process(UnsafeBufferPointer(start: samples.baseAddress, count: samples.count), into: &output)
        appendItem(output.map(SampleConversion.int16))
        return .queued
    }

    /// The reply's audio is complete: after what was fed (and what the resampler still holds).
    mutating func appendEnd() {
        flushResampler()
        items.append(.end)
    }

    /// Drops everything waiting, and the resampler's state (an interrupt).
    mutating func removeAll() {
        items.removeAll()
        head = 0
        offset = 0
        pendingSamples = 0
        resampler = nil
    }

    /// Moves what the ring takes into it, in order, stopping at the first push that does not fit; `end` ends
    /// the reply where an end was fed. Returns false when the engine was stopped (everything is dropped).
    mutating func pump(push: (UnsafeBufferPointer<Int16>) -> PushOutcome, end: () -> Void) -> Bool {
        while head < items.count {
            switch items[head] {
            case .end:
                end()
            case .samples(let samples):
                // At most a second a push, so a nearly full ring takes the part that fits.
                let count = min(samples.count - offset, StreamFormat.sampleRate)
                let outcome = samples.withUnsafeBufferPointer { buffer -> PushOutcome in
                    guard let start = buffer.baseAddress else { return .queued }
                    return push(UnsafeBufferPointer(start: start + offset, count: count))
                }
                switch outcome {
                case .queued:
                    offset += count
                    pendingSamples -= count
                    if offset < samples.count { continue }
                case .ringFull:
                    if head >= 32 {  // drop the pushed items now and then, so a queue that never empties stays small
                        items.removeFirst(head)
                        head = 0
                    }
                    return true
                case .stopped:
                    removeAll()
                    return false
                }
            }
            head += 1
            offset = 0
        }
        items.removeAll(keepingCapacity: true)
        head = 0
        return true
    }

    // MARK: Inside

    private mutating func appendConverted(_ samples: [Int16]) -> FeedOutcome {
        guard pendingSamples + samples.count <= Self.limit else { return .overLimit(pending: pendingSamples) }
        appendItem(samples)
        return .queued
    }

    private mutating func appendItem(_ samples: [Int16]) {
        guard !samples.isEmpty else { return }
        items.append(.samples(samples))
        pendingSamples += samples.count
    }

    /// Emits what the resampler still holds (at the end of a reply, or when the rate changes).
    private mutating func flushResampler() {
        guard var current = resampler else { return }
        var output: [Float] = []
        current.flush(into: &output)
        resampler = nil
        appendItem(output.map(SampleConversion.int16))
    }
}
