import Essence2Runtime

/// What an `Essence2Engine` keeps beside its engine, under one lock: the reply counts seen (for its events),
/// the buffer frames are taken into, and the event streams to finish on shutdown. Speech, frames and their
/// timing live in the engine (its feed, its frame records, its audio-clock pacing): nothing is queued here.
struct KitState {
    /// Replies started and ended as of the last frame taken from the engine.
    var repliesStarted: Int64 = 0
    var repliesEnded: Int64 = 0
    var isShutDown = false
    /// Where the engine writes a frame; copied into the frame handed out (the engine's frames are always this
    /// size: the Kit shows the full portrait).
    var scratch: [UInt8]
    var events: [UInt64: AsyncStream<Essence2Event>.Continuation] = [:]
    var nextStreamID: UInt64 = 0

    init(frameBytes: Int) {
        scratch = [UInt8](repeating: 0, count: frameBytes)
    }

    /// Marks the state shut down and hands back every stream to finish (outside the lock).
    mutating func closeAll() -> StreamEnds {
        isShutDown = true
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
