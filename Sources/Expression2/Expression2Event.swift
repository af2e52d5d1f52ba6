/// Reply boundaries, each exactly once per reply, as frames are handed out.
public enum Expression2Event: Sendable, Equatable {
    /// A reply's first speech frame was handed out.
    case replyStarted
    /// The first frame after a reply was handed out.
    case replyEnded
}
