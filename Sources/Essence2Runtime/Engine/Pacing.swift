/// How frames are handed out.
package enum Pacing: Int32, Sendable, Equatable {
    /// At most 25 frames a second on the wall clock; silence is held when a live reply's audio runs dry.
    case realtime = 0
    /// As fast as they render; speech frames only from pushed audio; deterministic.
    case unpaced = 1
}
