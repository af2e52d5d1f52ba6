/// What the engine knows about a frame it hands out, recorded once, under the engine's lock, as the frame is
/// handed out: the one source every binding takes a frame's place, timing and audio from.
package struct FrameRecord: Sendable, Equatable {
    package var kind: FrameKind
    /// Frames this engine handed out before this one (0 for the first).
    package var sequence: Int64
    /// Speech and ramp frames: the reply's number (1 for the engine's first reply); 0 for idle frames.
    package var reply: Int64
    /// Speech and ramp frames: the frame's index within its reply; -1 for idle frames.
    package var replyFrame: Int
    /// Speech frames: seconds into the reply's audio where the frame's own audio starts; nil otherwise.
    package var audioTime: Double?
    /// The first frame after a reply ended (once per reply: the idle frame after its ramp, the frame after an
    /// interrupt, or a speech frame that starts the next reply straight after a ramp).
    package var endsReply: Bool
    /// Reply frames skipped (late on the timeline, their audio already played, or passed over by the playout
    /// anchor) since the frame handed out before this one.
    package var skippedBefore: Int64
    /// The frame's own speech, 16 kHz mono: the reply's samples it covers (640, fewer for a reply's last partial
    /// frame, none for a frame held while a live reply's audio ran dry and outside speech).
    package var audio: [Int16]

    /// The record of a frame that is not part of any reply's speech.
    package static func idle(sequence: Int64) -> FrameRecord {
        FrameRecord(kind: .idle, sequence: sequence, reply: 0, replyFrame: -1, audioTime: nil, endsReply: false,
                    skippedBefore: 0, audio: [])
    }
}
