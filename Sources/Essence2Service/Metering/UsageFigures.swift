import Essence2Runtime
/// What a session has rendered so far, in frames handed out (40 ms each), and the whole seconds the service is
/// told (`docs/sessions.md`): session time is rendered video, so unpaced rendering bills deterministically.
package struct UsageFigures: Sendable, Equatable {
    /// Frames handed out (pull_frame / idle_frame), every kind.
    package var frames: Int64 = 0
    /// Of those, speech and ramp frames (the avatar talking or easing back to rest).
    package var talkingFrames: Int64 = 0

    package init(frames: Int64 = 0, talkingFrames: Int64 = 0) {
        self.frames = frames
        self.talkingFrames = talkingFrames
    }

    /// Whole seconds of rendered video (25 frames a second, rounded down).
    package var seconds: Int64 { frames / Int64(StreamFormat.framesPerSecond) }
    /// Whole seconds of talking, rounded down.
    package var talkingSeconds: Int64 { talkingFrames / Int64(StreamFormat.framesPerSecond) }
    /// `seconds - talkingSeconds`, so the three always add up as the protocol requires.
    package var idleSeconds: Int64 { seconds - talkingSeconds }

    /// Counts one frame handed out.
    package mutating func count(_ kind: FrameKind) {
        frames += 1
        if kind != .idle { talkingFrames += 1 }
    }

    /// The figures as the service sees them (whole seconds), to tell whether a report would say anything new.
    package var reported: [Int64] { [seconds, talkingSeconds, idleSeconds] }

    /// What is left after removing `other` (frames the service has not acknowledged).
    package func subtracting(_ other: UsageFigures) -> UsageFigures {
        UsageFigures(frames: max(0, frames - other.frames), talkingFrames: max(0, talkingFrames - other.talkingFrames))
    }
}
