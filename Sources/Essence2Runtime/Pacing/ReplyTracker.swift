/// Counts replies from the kinds of the frames handed out: exactly one start and one end per reply.
///
/// A reply starts with a speech frame that follows an idle or ramp frame (or none); it ends with the first
/// idle frame after it, or with an interrupt. A ramp straight into speech is two replies; an interrupt
/// while idle is nothing.
package struct ReplyTracker: Sendable, Equatable {
    /// What a frame did to the reply count.
    package enum Event: Sendable, Equatable {
        case none
        case started
        case ended
        /// A ramp straight into speech: the running reply ended and a new one started with this frame.
        case endedAndStarted
    }

    package private(set) var inReply = false
    package private(set) var started: Int64 = 0
    package private(set) var ended: Int64 = 0
    private var previous: FrameKind?
    /// True after an interrupt ended the reply while its ramp frames are still being handed out.
    private var interrupted = false

    package init() {}

    /// Records one handed-out frame.
    package mutating func observe(_ kind: FrameKind) -> Event {
        defer { previous = kind }
        switch kind {
        case .speech:
            if !inReply {
                inReply = true
                interrupted = false
                started += 1
                return .started
            }
            if previous == .ramp {
                ended += 1
                started += 1
                return .endedAndStarted
            }
            return .none
        case .ramp:
            return .none
        case .idle:
            interrupted = false
            if inReply {
                inReply = false
                ended += 1
                return .ended
            }
            return .none
        }
    }

    /// Records an interrupt (reset). Returns true when it ended a reply.
    package mutating func interrupt() -> Bool {
        guard inReply, !interrupted else { return false }
        inReply = false
        interrupted = true
        ended += 1
        return true
    }
}
