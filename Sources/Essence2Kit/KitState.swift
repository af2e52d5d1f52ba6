import Essence2Runtime

/// What an `Essence2Engine` keeps beside its engine, under one lock: the speech not yet pushed, the resampler
/// of `feed(_:sampleRate:)`, the frames taken from the engine and not yet handed out, the reply counts seen, and
/// the event streams to finish on shutdown.
struct KitState {
    var feed = FeedQueue()
    /// The resampler of the current input rate (nil while samples come at 16 kHz).
    var resampler: StreamResampler?
    /// Frames taken from the engine as they fell due, waiting for the audio clock (oldest first).
    var ready: [Essence2Frame] = []
    /// Replies started and ended as of the last frame taken from the engine.
    var repliesStarted: Int64 = 0
    var repliesEnded: Int64 = 0
    /// Speech frames dropped because the audio clock had passed them by a full frame.
    var dropped: Int64 = 0
    var isShutDown = false
    /// Where the engine writes a frame; copied into the frame handed out (the engine's frames are always this
    /// size: the Kit shows the full portrait).
    var scratch: [UInt8]
    var events: [UInt64: AsyncStream<Essence2Event>.Continuation] = [:]
    var nextStreamID: UInt64 = 0

    /// Frames taken early are kept at most this many (their audio time passes anyway).
    static let readyLimit = 16

    init(frameBytes: Int) {
        scratch = [UInt8](repeating: 0, count: frameBytes)
    }

    /// Marks the state shut down and hands back every stream to finish (outside the lock).
    mutating func closeAll() -> StreamEnds {
        if !isShutDown {
            isShutDown = true
            feed.removeAll()
            ready.removeAll()
        }
        let ends = StreamEnds(events: Array(events.values))
        events.removeAll()
        return ends
    }
}

/// Event streams to finish, collected under the lock and finished outside it (frame streams end by themselves:
/// `nextFrame` returns nil once the engine is shut down).
struct StreamEnds {
    var events: [AsyncStream<Essence2Event>.Continuation]

    func finish() {
        for continuation in events { continuation.finish() }
    }
}
