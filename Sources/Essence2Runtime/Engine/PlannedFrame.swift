/// A frame in the display queue: planned (its parameters fixed), then rendered (a buffer attached).
struct PlannedFrame {
    let id: UInt64
    let kind: FrameKind
    /// The reply it belongs to; 0 for idle frames.
    let replyID: UInt64
    /// Index within the reply (speech and ramp), or -1 for idle frames.
    let index: Int
    let params: FrameParams
    /// Idle-motion frame number the pose was taken from.
    let motion: Int
    /// Samples of the reply's audio consumed up to and including this frame.
    let audioEnd: Int64
    /// Reply frames: the speech motion's state after this frame, where a following reply continues from.
    var gesture: SpeechMotion? = nil
    /// Speech frames: the reply's samples the frame covers (up to 640); empty otherwise.
    var audio: [Int16] = []
    var buffer: FrameBuffer?
    var inFlight = false

    var isRendered: Bool { buffer != nil }
}
