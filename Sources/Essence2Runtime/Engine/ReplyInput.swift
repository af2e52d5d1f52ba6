/// The audio side of one reply: its samples (inside the lip-sync stream) and how far frames have been planned.
struct ReplyInput {
    enum Phase: Equatable {
        case speech
        /// Easing from `from` back to rest; `step` ramp frames planned so far.
        case ramp(from: Articulation, step: Int)
        /// Every frame of the reply is planned.
        case done
    }

    let id: UInt64
    var lipSync: LipSyncStream
    /// The audio is complete (end_utterance, or 0.6 s without audio).
    var ended = false
    var firstPush: Int64
    var lastPush: Int64
    var phase = Phase.speech
    /// Index within the reply of the next frame to plan.
    var nextIndex = 0
    /// Samples of audio consumed by planned frames.
    var consumed: Int64 = 0
    var lastArticulation = Articulation.rest
    /// Idle-motion frame number of the reply's frame 0, fixed when its first frame is planned.
    var motionBase: Int?
    /// The motion that follows the voice, after the reply's last planned frame; set when its first frame is
    /// planned, from the frame before it.
    var gesture: SpeechMotion?

    init(id: UInt64, now: Int64, model: LipSyncModel, cadence: FrameCadence, weights: LipSyncWeights) {
        self.id = id
        lipSync = LipSyncStream(model: model, cadence: cadence, weights: weights)
        firstPush = now
        lastPush = now
    }
}
