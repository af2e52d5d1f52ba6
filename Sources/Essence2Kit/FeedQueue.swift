import Essence2Runtime

/// Speech fed to an engine and not yet taken by it, in order, with the ends of replies between: `feed` never
/// blocks, so what the engine's ring cannot take yet waits here and is pushed as frames are taken.
struct FeedQueue {
    private enum Item {
        case samples([Int16])
        /// `flushTail()`: the reply's audio is complete once everything before it is pushed.
        case end
    }

    private var items: [Item] = []
    private var head = 0
    /// Samples of the first item already pushed.
    private var offset = 0
    /// Samples waiting in all.
    private(set) var sampleCount = 0

    var isEmpty: Bool { head == items.count }

    mutating func append(_ samples: [Int16]) {
        guard !samples.isEmpty else { return }
        items.append(.samples(samples))
        sampleCount += samples.count
    }

    mutating func appendEnd() {
        items.append(.end)
    }

    mutating func removeAll() {
        items.removeAll()
        head = 0
        offset = 0
        sampleCount = 0
    }

    /// Pushes what the engine takes, in order, stopping at the first push that does not fit.
    mutating func pump(into engine: Engine) {
        while head < items.count {
            switch items[head] {
            case .end:
                engine.endUtterance()
            case .samples(let samples):
                // One push at most a second of audio, so a full ring takes the part that fits.
                let count = min(samples.count - offset, StreamFormat.sampleRate)
                let outcome = samples.withUnsafeBufferPointer { buffer -> PushOutcome in
                    guard let start = buffer.baseAddress else { return .queued }
                    return engine.push(UnsafeBufferPointer(start: start + offset, count: count))
                }
                switch outcome {
                case .queued:
                    offset += count
                    sampleCount -= count
                    if offset < samples.count { continue }
                case .ringFull:
                    if head >= 32 {  // drop the pushed items now and then, so a queue that never empties stays small
                        items.removeFirst(head)
                        head = 0
                    }
                    return
                case .stopped:
                    removeAll()
                    return
                }
            }
            head += 1
            offset = 0
        }
        // Everything was pushed: start again with an empty array rather than keep the pushed items.
        items.removeAll(keepingCapacity: true)
        head = 0
    }
}
