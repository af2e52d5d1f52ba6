/// How frames are handed out.
package enum Pacing: Int32, Sendable, Equatable {
    /// At most 25 frames a second on the wall clock; silence is held when a live reply's audio runs dry.
    case realtime = 0
    /// As fast as they render; speech frames only from pushed audio; deterministic.
    case unpaced = 1
    /// As `realtime`, except that a reply's speech frames follow the host's audio clock (`setPlayoutPosition`)
    /// instead of the wall clock: frame k is handed out once sample k x 640 of the reply has played (the
    /// first at once, so the host can start its sound on it) and skipped only when all its samples have.
    case audioClock = 2

    /// Whether frames go out on a clock (25 a second at most), as opposed to as fast as they render.
    package var isPaced: Bool { self != .unpaced }
}
