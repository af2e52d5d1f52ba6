/// How often an engine hands out frames and how much audio each covers: Essence 2's 25 frames a second
/// (640 samples, four 10 ms analysis hops) or Expression 2's 20 (800 samples, five hops). Everything that
/// counts frames in time (the frame clock, a reply's timeline, the lip-sync stream, the idle motion) takes its
/// numbers from the engine's cadence.
package struct FrameCadence: Sendable, Equatable, Hashable {
    /// Frames per second.
    package let framesPerSecond: Int
    /// 16 kHz samples per frame.
    package var samplesPerFrame: Int { StreamFormat.sampleRate / framesPerSecond }
    /// One frame period in nanoseconds.
    package var period: Int64 { 1_000_000_000 / Int64(framesPerSecond) }
    /// 10 ms analysis hops per frame.
    package var frameHops: Int { samplesPerFrame / 160 }

    private init(framesPerSecond: Int) {
        self.framesPerSecond = framesPerSecond
    }

    /// Realtime: a reply's first frame is rendered this long after its audio began, look-ahead or not (ns).
    /// Expression 2's first frame needs 127.5 ms of audio with all its look-ahead; at 100 ms it renders with what
    /// has come (at most 27.5 ms of look-ahead missing, for that one frame), so that it is shown within 150 ms of
    /// its audio by a host that feeds 20 ms chunks live, whatever the phase of its 50 ms frame slots.
    package var firstFrameDeadline: Int64 { framesPerSecond == 20 ? 100_000_000 : 160_000_000 }

    /// Realtime: how long before its slot a reply's first speech frame may go out once it is rendered (ns), the
    /// slot grid then starting again from it (the reply anchors the frame clock as it anchors its timeline).
    /// Expression 2's 50 ms slots would otherwise add up to 50 ms to the first speech frame; Essence 2 keeps
    /// its grid (0).
    package var replyStartLead: Int64 { framesPerSecond == 20 ? period / 2 : 0 }

    /// Essence 2: 25 frames a second, 640 samples (40 ms) each.
    package static let essence2 = FrameCadence(framesPerSecond: StreamFormat.framesPerSecond)
    /// Expression 2: 20 frames a second, 800 samples (50 ms) each.
    package static let expression2 = FrameCadence(framesPerSecond: 20)

    /// The idle-motion frame number (counted at 25 a second) at this cadence's frame `frame`: motion runs at
    /// the same speed in seconds whatever the cadence.
    package func motionFrame(_ frame: Int) -> Int {
        let f = min(max(frame, 0), 1 << 40)
        return f * IdleMotion.framesPerSecond / framesPerSecond
    }
}
