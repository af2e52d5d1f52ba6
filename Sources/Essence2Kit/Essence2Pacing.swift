/// How fast frames are handed out.
public enum Essence2Pacing: Sendable, Equatable {
    /// At most 25 frames a second on the wall clock (live use; the default).
    case realtime
    /// As fast as they render (files); the same avatar, audio and seed give the same bytes.
    case unpaced
}
