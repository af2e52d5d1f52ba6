import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One talking avatar: audio in, paced frames out, rendered ahead on its own background thread.
///
/// Every method is thread-safe and returns promptly (none waits for rendering); `waitUntilStopped` is
/// the only one that blocks. The render thread ends after `stop()` (or when the engine is released).
public final class Engine: Sendable {
    let core: EngineCore

    /// Starts an engine for `avatar`; its render thread starts at once.
    /// - Parameter clock: time source for pacing; tests inject a `ManualClock`.
    public init(avatar: Avatar, clock: any MonotonicClock = SystemClock()) {
        // The lip-sync weights are decoded once per process (about 12 ms): here, not in the first reply.
        _ = ArticulationEnsemble.shipped
        core = EngineCore(avatar: avatar, clock: clock)
        core.startThread()
    }

    deinit {
        core.stop()
    }

    // MARK: Settings

    public func setPacing(_ pacing: Pacing) {
        core.state.withLock { s in
            guard s.pacing != pacing else { return }
            s.pacing = pacing
            s.clock.restart()
        }
        core.wake()
    }

    public func setMode(_ mode: DisplayMode) {
        core.state.withLock { s in
            guard s.mode != mode else { return }
            s.mode = mode
            s.invalidateRenders(replanIdle: false)
        }
        core.wake()
    }

    /// Chooses the audio-to-articulation mapping of the replies started from now on; a reply already
    /// running keeps the mapping it started with.
    public func setLipSyncModel(_ model: LipSyncModel) {
        core.state.withLock { $0.lipSyncModel = model }
    }

    /// Seeds the idle motion of frames planned from now on.
    public func setSeed(_ seed: UInt64) {
        core.state.withLock { s in
            s.idleMotion = IdleMotion(seed: seed)
            s.invalidateRenders(replanIdle: true)
        }
        core.wake()
    }

    /// When on, each reply starts at the live audio position instead of its first frame.
    public func setPlayoutAnchor(_ on: Bool) {
        core.state.withLock { $0.playoutAnchor = on }
    }

    /// The host has played `samples` of the current reply's audio; frames whose audio has played are skipped.
    public func setPlayoutPosition(_ samples: Int64) {
        core.state.withLock { $0.reportPlayout(samples) }
    }

    // MARK: Audio

    /// Queues speech; false when the ring has no room for all of it (nothing was queued).
    public func pushAudio(_ samples: UnsafeBufferPointer<Int16>) -> Bool {
        let now = core.clock.nanoseconds()
        let queued = core.state.withLock { $0.push(samples, now: now) }
        if queued { core.wake() }
        return queued
    }

    /// The running reply's audio is complete: its frames finish, then the face eases to rest.
    public func endUtterance() {
        core.state.withLock { $0.endUtterance() }
        core.wake()
    }

    /// Interrupt: drops queued audio and frames; the face eases to rest from the frame last shown.
    public func reset() {
        let now = core.clock.nanoseconds()
        core.state.withLock { $0.reset(now: now) }
        core.wake()
    }

    // MARK: Frames

    /// The outcome of asking for a frame.
    public enum PullResult: Sendable, Equatable {
        /// A frame of `bytes` bytes was written.
        case frame(FrameKind, bytes: Int)
        /// Nothing is due yet (or the engine is stopped): keep showing the current frame.
        case notDue
        /// The destination is smaller than one frame of the current mode.
        case bufferTooSmall
    }

    /// Takes the next due frame (reply or idle) into `out`.
    public func pull(into out: UnsafeMutableRawBufferPointer) -> PullResult {
        core.take(into: out, idleOnly: false)
    }

    /// Takes the next idle frame into `out`, under the same pacing.
    public func pullIdle(into out: UnsafeMutableRawBufferPointer) -> PullResult {
        core.take(into: out, idleOnly: true)
    }

    /// Takes the next due frame; nil when none is due or `out` is too small.
    public func pullFrame(into out: UnsafeMutableRawBufferPointer) -> FrameKind? {
        if case .frame(let kind, _) = pull(into: out) { return kind }
        return nil
    }

    /// Takes the next idle frame; nil when none is due or `out` is too small.
    public func idleFrame(into out: UnsafeMutableRawBufferPointer) -> FrameKind? {
        if case .frame(let kind, _) = pullIdle(into: out) { return kind }
        return nil
    }

    /// Frames ready to pull now (0: the next pull returns nothing).
    public func framesAvailable() -> Int {
        let now = core.clock.nanoseconds()
        return core.state.withLock { $0.available(now: now) }
    }

    // MARK: Status

    /// Frame size of the current mode, in pixels.
    public var frameSize: (width: Int, height: Int) { core.state.withLock { $0.frameSize } }
    /// Bytes of one frame of the current mode.
    public var frameBytes: Int { core.state.withLock { $0.frameBytes } }
    public var mode: DisplayMode { core.state.withLock { $0.mode } }
    public var pacing: Pacing { core.state.withLock { $0.pacing } }
    /// The lip-sync mapping the next reply will use.
    public var lipSyncModel: LipSyncModel { core.state.withLock { $0.lipSyncModel } }
    /// Warm-up is over: the first frame has rendered.
    public var isReady: Bool { core.state.withLock { $0.ready } }
    /// Kind of the last frame handed out; nil before any.
    public var lastFrameKind: FrameKind? { core.state.withLock { $0.lastShown?.kind } }
    /// Index within its reply of the last frame handed out; -1 before any and for idle frames.
    public var lastFrameIndex: Int { core.state.withLock { $0.lastShown?.index ?? -1 } }
    public var pulledSpeechFrames: Int64 { core.state.withLock { $0.pulledSpeechFrames } }
    public var skippedFrames: Int64 { core.state.withLock { $0.skippedFrames } }
    public var reanchorSlots: Int64 { core.state.withLock { $0.clock.reanchoredSlots } }
    public var anchorSlots: Int64 { core.state.withLock { $0.anchorSlots } }
    /// Replies started and ended, as seen in the frames handed out.
    public var replyCounts: (started: Int64, ended: Int64) {
        core.state.withLock { ($0.tracker.started, $0.tracker.ended) }
    }
    /// Samples queued and not yet turned into frames.
    public var bufferedSamples: Int { core.state.withLock { $0.bufferedSamples } }
    /// Failed renders so far and the latest reason (empty when healthy).
    public var renderHealth: (failures: Int64, reason: String) {
        core.state.withLock { ($0.renderFailures, $0.failureReason) }
    }

    // MARK: Lifecycle

    /// Stops the engine: no more frames; the render thread finishes its current frame and exits.
    /// Returns false when it was already stopped.
    @discardableResult
    public func stop() -> Bool {
        core.stop()
    }

    /// Waits until the render thread has exited, at most until `deadline` (monotonic ns). True when it has.
    public func waitUntilStopped(deadline: Int64) -> Bool {
        core.waitUntilExited(deadline: deadline)
    }
}
