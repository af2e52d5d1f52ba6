/// Everything an engine knows, guarded by the engine's lock: the audio of the replies, the display queue,
/// the pacing clocks and the counters. Pure logic on an explicit `now`: the render thread plans and renders
/// frames through it, the host's calls take frames out of it.
struct EngineState {
    /// Frames a second and samples a frame: Essence 2's or Expression 2's, from the avatar's kind.
    let cadence: FrameCadence
    /// The learned lip-sync model's weights (the shipped ones, or a shared engine container's).
    let weights: LipSyncWeights
    /// Capacity of the audio ring: 16 s of 16 kHz audio.
    static let ringCapacity = StreamFormat.ringSamples
    /// A reply without new audio for this long is complete.
    static let silenceTimeout: Int64 = 600_000_000
    /// Realtime: the first frame of a reply is rendered this long after its audio began, look-ahead or not.
    static let firstFrameDeadline: Int64 = 160_000_000
    /// Frames easing back to rest after a reply.
    static let rampFrames = 5
    /// Idle frames kept rendered ahead.
    static let idleAhead = 2

    var pacing = Pacing.realtime
    var mode = DisplayMode.full
    /// The lip-sync mapping of replies started from now on.
    var lipSyncModel = LipSyncModel.learned
    var idleMotion: IdleMotion
    /// The speech motion's state after the last reply frame planned (the talker's voice statistics carry on).
    var speechMotion: SpeechMotion
    var stopped = false
    /// The first frame has rendered: warm-up is over.
    var ready = false

    var clock: FrameClock
    var tracker = ReplyTracker()
    var replies: [ReplyInput] = []
    /// Frames of replies (speech and ramp), in display order.
    var queue: [PlannedFrame] = []
    /// Idle frames, in display order.
    var idleQueue: [PlannedFrame] = []
    /// An idle frame was asked for explicitly while none was planned.
    var idleWanted = false
    /// The running reply's timeline, anchored on its first speech frame handed out.
    var timeline: (replyID: UInt64, line: ReplyTimeline)?
    var playout = PlayoutPosition()
    /// The reply the playout position refers to.
    var playoutReplyID: UInt64 = 0
    var playoutAnchor = false
    /// Frames were skipped because the host's audio had played them: the next frame re-anchors the timeline.
    var resyncToPlayout = false
    /// A take dropped frames or asked for an idle frame: the render thread has planning to do.
    var needsPlanning = false
    var lastShown: ShownFrame?
    var nextID: UInt64 = 1
    var pool: [FrameBuffer] = []

    /// The record of the frame handed out last (FrameRecord), and what it was computed from.
    var lastRecord: FrameRecord?
    var handedOut: Int64 = 0
    var skippedAtLastHandout: Int64 = 0
    var endedAtLastHandout: Int64 = 0

    var pulledSpeechFrames: Int64 = 0
    var skippedFrames: Int64 = 0
    var anchorSlots: Int64 = 0
    var renderFailures: Int64 = 0
    var failureReason = ""

    let fullSize: (width: Int, height: Int)
    let headSize: (width: Int, height: Int)

    init(avatar: Avatar, weights: LipSyncWeights = .shipped) {
        self.weights = weights
        cadence = avatar.cadence
        clock = FrameClock(period: avatar.cadence.period)
        idleMotion = IdleMotion(seed: avatar.seed)
        speechMotion = SpeechMotion(seed: avatar.seed)
        fullSize = (avatar.width, avatar.height)
        headSize = (avatar.headBox.width, avatar.headBox.height)
    }

    var frameSize: (width: Int, height: Int) { mode == .full ? fullSize : headSize }
    var frameBytes: Int { frameSize.width * frameSize.height * 3 }

    /// Samples pushed and not yet turned into frames, over all replies.
    var bufferedSamples: Int { replies.reduce(0) { $0 + $1.lipSync.bufferedSamples } }

    mutating func makeID() -> UInt64 {
        defer { nextID += 1 }
        return nextID
    }
}

/// What the host was shown last: where a reset eases from, and where idle motion continues from.
struct ShownFrame {
    var kind: FrameKind
    var replyID: UInt64
    var index: Int
    var articulation: Articulation
    var motion: Int
    /// Reply frames: the speech motion's state after it.
    var gesture: SpeechMotion? = nil
    /// Reply frames: samples of the reply's audio consumed up to and including this frame (a held frame
    /// consumes none, so it repeats the one before).
    var audioEnd: Int64 = 0
}
