/// What a frame shows.
package enum FrameKind: Int32, Sendable, Equatable {
    /// Idle motion, mouth at rest.
    case idle = 0
    /// A frame of a reply, lips following its audio.
    case speech = 1
    /// Easing back to rest after speech.
    case ramp = 2
}
