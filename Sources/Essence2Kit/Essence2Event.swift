/// What happens to replies, as the frames handed out show it: each reply starts once and ends once.
public enum Essence2Event: Sendable, Equatable {
    /// A reply's first speech frame was handed out.
    case replyStarted
    /// The first frame after a reply was handed out (its audio ran out, `flushTail()` ended it, or
    /// `interrupt()` cut it short).
    case replyEnded
}
