/// One video frame: packed B,G,R pixels, rows top to bottom, no padding, `width * height * 3` bytes.
public struct Essence2Frame: Sendable, Equatable {
    /// The pixels, B,G,R.
    public let bgr: [UInt8]
    public let width: Int
    public let height: Int
    /// A frame of a reply, lips following its audio (else idle, or easing back to rest after a reply).
    public let isSpeech: Bool
    /// The first frame after a reply has ended: true once per reply.
    public let endsReply: Bool
    /// Index within its reply (speech frames and the frames easing to rest after them); -1 for idle frames.
    public let index: Int
    /// For a speech frame, where it sits in its reply's audio, in seconds: 0, 0.04, 0.08, ...; 0 otherwise.
    public let audioTime: Double

    public init(bgr: [UInt8], width: Int, height: Int, isSpeech: Bool, endsReply: Bool, index: Int, audioTime: Double) {
        self.bgr = bgr
        self.width = width
        self.height = height
        self.isSpeech = isSpeech
        self.endsReply = endsReply
        self.index = index
        self.audioTime = audioTime
    }
}
