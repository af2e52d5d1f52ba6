import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One talking avatar: audio in, paced frames out, rendered ahead on its own background thread.
///
/// Every method is thread-safe and returns promptly (none waits for rendering); `waitUntilStopped` is
/// the only one that blocks. The render thread ends after `stop()` (or when the engine is released).
package final class Engine: Sendable {
    let core: EngineCore
    /// Audio fed beyond the ring (`feed`), pushed in as frames are taken.
    let audioFeed = Locked(AudioFeed())
    /// The metered session frames are checked against and counted in; nil when unmetered (no service).
    package let session: (any FrameGate)?

    /// Starts an engine for `avatar`; its render thread starts at once.
    /// - Parameter clock: time source for pacing; tests inject a `ManualClock`.
    /// An engine for `avatar`; its render thread starts now, unless `startRendering` is false (tests that need
    /// an engine that never becomes ready).
    /// - Parameter session: the gate frames pass (a metered session of Essence2Service), nil to run unmetered.
    package init(avatar: Avatar, clock: any MonotonicClock = SystemClock(), startRendering: Bool = true,
                 session: (any FrameGate)? = nil, weights: LipSyncWeights = .shipped) {
        self.session = session
        ProcessMemory.prepare()
        // The lip-sync weights are decoded once per process (about 12 ms): here, not in the first reply.
        _ = weights.ensemble
        core = EngineCore(avatar: avatar, clock: clock, weights: weights)
        if startRendering { core.startThread() }
    }

    deinit {
        core.stop()
        session?.finish(waitUntil: nil)
    }

    // MARK: Settings

    package func setPacing(_ pacing: Pacing) {
        core.state.withLock { s in
            guard s.pacing != pacing else { return }
            s.pacing = pacing
            s.clock.restart()
        }
        core.wake()
    }

    package func setMode(_ mode: DisplayMode) {
        core.state.withLock { s in
            guard s.mode != mode else { return }
            s.mode = mode
            s.invalidateRenders(replanIdle: false)
        }
        core.wake()
    }

    /// Chooses the audio-to-articulation mapping of the replies started from now on; a reply already
    /// running keeps the mapping it started with.
    package func setLipSyncModel(_ model: LipSyncModel) {
        core.state.withLock { $0.lipSyncModel = model }
    }

    /// Seeds the idle motion of frames planned from now on.
    package func setSeed(_ seed: UInt64) {
        core.state.withLock { s in
            s.idleMotion = IdleMotion(seed: seed)
            s.speechMotion.seed = seed
            s.invalidateRenders(replanIdle: true)
        }
        core.wake()
    }

    /// When on, each reply starts at the live audio position instead of its first frame.
    package func setPlayoutAnchor(_ on: Bool) {
        core.state.withLock { $0.playoutAnchor = on }
    }

    /// The host has played `samples` of the current reply's audio; frames whose audio has played are skipped.
    package func setPlayoutPosition(_ samples: Int64) {
        core.state.withLock { $0.reportPlayout(samples) }
    }

    // MARK: Audio

    /// Queues speech into the ring, all or nothing; says why nothing was queued when it was not. While fed audio
    /// waits beyond the ring, the samples queue behind it instead (order is kept; the limit of `feed` applies).
    package func push(_ samples: UnsafeBufferPointer<Int16>) -> PushOutcome {
        let queuedBehindFeed = audioFeed.withLock { feed -> PushOutcome? in
            guard feed.hasQueued else { return nil }
            switch feed.append(samples, rate: StreamFormat.sampleRate) {
            case .queued: return .queued
            case .overLimit(let pending): return .ringFull(buffered: StreamFormat.ringSamples + pending)
            case .unsupportedRate, .stopped: return .stopped
            }
        }
        if let queuedBehindFeed {
            pumpFeed()
            return queuedBehindFeed
        }
        let now = core.clock.nanoseconds()
        let outcome = core.state.withLock { $0.push(samples, now: now) }
        if outcome == .queued { core.wake() }
        return outcome
    }

    /// Queues speech of the running reply (or starts one): any amount, 16-bit samples at any rate the
    /// resampler takes (1 kHz to 384 kHz; 16 kHz goes in unchanged), carrying the filter from one call to the
    /// next. Never blocks and never waits for ring room: what the ring cannot take yet waits (up to
    /// `AudioFeed.limit` samples) and goes in as frames are taken.
    package func feed(_ samples: UnsafeBufferPointer<Int16>, sampleRate: Int) -> FeedOutcome {
        feed { $0.append(samples, rate: sampleRate) }
    }

    /// `feed` for float samples (-1...1, clipped; NaN and infinities are silence: `SampleConversion`).
    package func feed(_ samples: UnsafeBufferPointer<Float>, sampleRate: Int) -> FeedOutcome {
        feed { $0.append(samples, rate: sampleRate) }
    }

    /// Appends to the feed unless the engine stopped, then moves what fits into the ring.
    private func feed(_ append: (inout AudioFeed) -> FeedOutcome) -> FeedOutcome {
        guard !core.state.withLock({ $0.stopped }) else { return .stopped }
        let outcome = audioFeed.withLock(append)
        if outcome == .queued { pumpFeed() }
        return outcome
    }

    /// The most 16 kHz samples that may wait beyond the ring (10 minutes).
    package static let feedLimit = AudioFeed.limit

    /// Samples fed that wait beyond the ring (not yet taken in by the engine).
    package var pendingSamples: Int { audioFeed.withLock { $0.pendingSamples } }

    /// Moves fed audio into the ring as far as it has room.
    func pumpFeed() {
        let now = core.clock.nanoseconds()
        var moved = false
        audioFeed.withLock { feed in
            guard feed.hasQueued else { return }
            _ = feed.pump(push: { samples in
                let outcome = core.state.withLock { $0.push(samples, now: now) }
                moved = moved || outcome == .queued
                return outcome
            }, end: {
                core.state.withLock { $0.endUtterance() }
                moved = true
            })
        }
        if moved { core.wake() }
    }

    /// Queues speech; false when nothing was queued (the ring has no room for all of it, or the engine stopped).
    package func pushAudio(_ samples: UnsafeBufferPointer<Int16>) -> Bool {
        push(samples) == .queued
    }

    /// The running reply's audio is complete: its frames finish, then the face eases to rest. Fed audio still
    /// waiting beyond the ring belongs to the reply: it ends after that audio.
    /// Drops the fed audio still waiting beyond the ring (`feed`); what the ring holds stays.
    package func dropWaitingFeed() {
        audioFeed.withLock { $0.removeAll() }
    }

    package func endUtterance() {
        let ended = audioFeed.withLock { feed -> Bool in
            if feed.hasQueued || feed.isResampling {
                feed.appendEnd()
                return false
            }
            core.state.withLock { $0.endUtterance() }
            return true
        }
        if ended { core.wake() } else { pumpFeed() }
    }

    /// Interrupt: drops queued audio and frames; the face eases to rest from the frame last shown.
    package func reset() {
        audioFeed.withLock { $0.removeAll() }
        let now = core.clock.nanoseconds()
        core.state.withLock { $0.reset(now: now) }
        core.wake()
    }

    // MARK: Frames

    /// A frame handed out, with what the caller may want to know about it (taken under the same lock).
    package struct TakenFrame: Sendable, Equatable {
        package var kind: FrameKind
        package var bytes: Int
        /// Index within its reply (speech and ramp frames), -1 for idle frames.
        package var index: Int
        /// The reply it belongs to (0 for idle frames).
        package var replyID: UInt64
        /// Replies started and ended so far, this frame counted.
        package var repliesStarted: Int64
        package var repliesEnded: Int64
        /// Everything else known about the frame, recorded as it was handed out.
        package var record: FrameRecord
    }

    /// The outcome of asking for a frame, with the frame's details.
    package enum TakeOutcome: Sendable, Equatable {
        case frame(TakenFrame)
        case notDue
        case bufferTooSmall
        case refused(String)
    }

    /// Takes the next due frame (reply or idle, or only idle) into `out`, with its details.
    package func take(into out: UnsafeMutableRawBufferPointer, idleOnly: Bool = false) -> TakeOutcome {
        if let session, case .refused(let reason) = session.permission() { return .refused(reason) }
        let outcome = core.take(into: out, idleOnly: idleOnly)
        if case .frame(let frame) = outcome {
            session?.delivered(frame.kind)
            pumpFeed()  // the frame made room in the ring
        }
        return outcome
    }

    /// Takes the next due frame; nil when none is due or `out` is too small.
    package func pullFrame(into out: UnsafeMutableRawBufferPointer) -> FrameKind? {
        if case .frame(let frame) = take(into: out, idleOnly: false) { return frame.kind }
        return nil
    }

    /// Takes the next idle frame; nil when none is due or `out` is too small.
    package func idleFrame(into out: UnsafeMutableRawBufferPointer) -> FrameKind? {
        if case .frame(let frame) = take(into: out, idleOnly: true) { return frame.kind }
        return nil
    }

    /// A file descriptor that is readable while a frame can be pulled (level-triggered; owned by the engine).
    package func frameDescriptor() -> Result<Int32, FrameSignalError> {
        core.frameDescriptor()
    }

    /// Frames ready to pull now (0: the next pull returns nothing).
    package func framesAvailable() -> Int {
        let now = core.clock.nanoseconds()
        return core.state.withLock { $0.available(now: now) }
    }

    // MARK: Status

    /// Frame size of the current mode, in pixels.
    package var frameSize: (width: Int, height: Int) { core.state.withLock { $0.frameSize } }
    /// Bytes of one frame of the current mode.
    package var frameBytes: Int { core.state.withLock { $0.frameBytes } }
    package var mode: DisplayMode { core.state.withLock { $0.mode } }
    package var pacing: Pacing { core.state.withLock { $0.pacing } }
    /// The lip-sync mapping the next reply will use.
    package var lipSyncModel: LipSyncModel { core.state.withLock { $0.lipSyncModel } }
    /// Warm-up is over: the first frame has rendered.
    package var isReady: Bool { core.state.withLock { $0.ready } }
    /// Kind of the last frame handed out; nil before any.
    package var lastFrameKind: FrameKind? { core.state.withLock { $0.lastShown?.kind } }
    /// Index within its reply of the last frame handed out; -1 before any and for idle frames.
    package var lastFrameIndex: Int { core.state.withLock { $0.lastShown?.index ?? -1 } }
    package var pulledSpeechFrames: Int64 { core.state.withLock { $0.pulledSpeechFrames } }
    package var skippedFrames: Int64 { core.state.withLock { $0.skippedFrames } }
    package var reanchorSlots: Int64 { core.state.withLock { $0.clock.reanchoredSlots } }
    package var anchorSlots: Int64 { core.state.withLock { $0.anchorSlots } }
    /// Replies started and ended, as seen in the frames handed out.
    package var replyCounts: (started: Int64, ended: Int64) {
        core.state.withLock { ($0.tracker.started, $0.tracker.ended) }
    }
    /// Samples queued and not yet turned into frames.
    package var bufferedSamples: Int { core.state.withLock { $0.bufferedSamples } }
    /// Failed renders so far and the latest reason (empty when healthy).
    package var renderHealth: (failures: Int64, reason: String) {
        core.state.withLock { ($0.renderFailures, $0.failureReason) }
    }

    // MARK: Lifecycle

    /// Stops the engine: no more frames; the render thread finishes its current frame and exits.
    /// Returns false when it was already stopped.
    @discardableResult
    package func stop() -> Bool {
        core.stop()
    }

    /// Closes the frame descriptor now (`be_essence2_destroy`: the header promises it closed when the handle is
    /// destroyed, not later when the render thread lets go of the engine).
    package func closeFrameDescriptor() {
        core.closeFrameDescriptor()
    }

    /// Ends the metered session (its final report), waiting for it at most until `deadline` (monotonic ns of
    /// the system clock; nil: do not wait). Nothing to do when unmetered.
    package func endSession(waitUntil deadline: Int64?) {
        session?.finish(waitUntil: deadline)
    }

    /// The engine was stopped (`stop`, `be_essence2_quiesce_all`): it hands out no more frames.
    /// Frames a second and samples a frame: Essence 2's, or Expression 2's for a character avatar.
    package var cadence: FrameCadence { core.avatar.cadence }

    package var isStopped: Bool { core.state.withLock { $0.stopped } }

    /// Why the session refuses frames now; nil while it allows them (and always when unmetered).
    package var sessionRefusal: String? { session?.refusal }

    /// Waits until the render thread has exited, at most until `deadline` (monotonic ns). True when it has.
    package func waitUntilStopped(deadline: Int64) -> Bool {
        core.waitUntilExited(deadline: deadline)
    }
}
