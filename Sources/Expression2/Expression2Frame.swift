/// One video frame of a character: packed B,G,R pixels, rows top to bottom, no padding, `width * height * 3`
/// bytes, with what the engine recorded as it handed the frame out.
public struct Expression2Frame: Sendable, Equatable {
    /// The pixels, B,G,R.
    public let bgr: [UInt8]
    public let width: Int
    public let height: Int
    /// The mouth follows your audio (else idle motion between replies, or easing back to rest after one).
    public let isSpeech: Bool
    /// The first frame after the reply's audio ran out (once per reply).
    public let endsReply: Bool
    /// Frames handed out before this one.
    public let index: Int
    /// Speech frames: seconds into the reply's audio (0, 0.05, ...); nil outside speech. 0 is the reply's first
    /// frame: start its audio.
    public let audioTime: Double?

    // Beyond the reference:

    /// The frame's own speech, 16 kHz mono: the reply's samples it covers (800 for a speech frame, fewer for a
    /// reply's last partial frame); empty outside speech.
    public let audio: [Int16]
    /// Speech and ramp frames: the reply's number, 1 for the engine's first; 0 for idle frames.
    public let reply: Int
    /// Speech and ramp frames: the frame's index within its reply; -1 for idle frames.
    public let replyFrame: Int
    /// Reply frames skipped (to stay on the audio) since the frame before this one.
    public let skippedBefore: Int

    public init(bgr: [UInt8], width: Int, height: Int, isSpeech: Bool, endsReply: Bool, index: Int,
                audioTime: Double?, audio: [Int16] = [], reply: Int = 0, replyFrame: Int = -1, skippedBefore: Int = 0) {
        self.bgr = bgr
        self.width = width
        self.height = height
        self.isSpeech = isSpeech
        self.endsReply = endsReply
        self.index = index
        self.audioTime = audioTime
        self.audio = audio
        self.reply = reply
        self.replyFrame = replyFrame
        self.skippedBefore = skippedBefore
    }
}
