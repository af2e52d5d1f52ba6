import Essence2Runtime
import Essence2Kit

extension Expression2Engine {
    // MARK: Speech

    /// Queues speech of the current reply (or starts a reply): 16 kHz mono samples in -1...1 (clipped; NaN is
    /// silence). Never blocks: what the engine cannot take yet waits inside it (up to 10 minutes).
    public func feed(_ samples: [Float]) {
        inner.feed(samples)
    }

    /// Queues speech at any sample rate (1 kHz ... 384 kHz, mono), resampled to 16 kHz. Beyond the reference.
    public func feed(_ samples: [Float], sampleRate: Double) {
        inner.feed(samples, sampleRate: sampleRate)
    }

    /// The end of an utterance: what was fed renders, then the face eases to rest.
    public func flushTail() {
        inner.flushTail()
    }

    /// Barge-in: drops the speech not yet shown, fed or queued; the face eases to rest from the frame last shown.
    public func interrupt() {
        inner.interrupt()
    }

    /// Interrupt (`clearFrames`, the default: as `interrupt()`), or, with `clearFrames: false`, drop only the
    /// fed audio still waiting beyond the engine's ring and end the reply there: frames already rendered and
    /// the audio the engine holds are still shown.
    public func resetState(clearFrames: Bool = true) {
        if clearFrames {
            inner.interrupt()
        } else {
            inner.engine.dropWaitingFeed()
            inner.flushTail()
        }
    }

    // MARK: Frames

    /// The next due frame's pixels and whether it is a speech frame; nil when none is due. Never blocks.
    public func pull() -> (frame: [UInt8], speech: Bool)? {
        inner.pullFrame().map { ($0.bgr, $0.isSpeech) }
    }

    /// The next idle frame (mouth at rest, idle motion going on), whatever the reply state; nil when none is
    /// due or the engine is stopped.
    public var idle: [UInt8]? {
        var out = [UInt8](repeating: 0, count: inner.engine.frameBytes)
        let outcome = out.withUnsafeMutableBytes { inner.engine.take(into: $0, idleOnly: true) }
        guard case .frame(let taken) = outcome else { return nil }
        return Array(out.prefix(taken.bytes))
    }

    /// The next frame into `buffer` (resized to a frame), as `pull()` takes it. Returns the bytes written; 0
    /// means keep showing the current one.
    public func idle(into buffer: inout [UInt8]) -> Int {
        inner.idle(into: &buffer)
    }

    /// The next frame when it is due (20 a second); nil after `shutdown()` or when the task is cancelled.
    /// - Parameter audioClock: seconds of the current reply's audio played (nil before it starts): speech frames
    ///   follow it, frame k once it reaches `audioTime`, a frame whose audio has wholly played is skipped.
    public func nextFrame(audioClock: (@Sendable () -> Double?)? = nil) async -> Expression2Frame? {
        await inner.nextFrame(audioClock: audioClock).map(Self.frame)
    }

    /// Every frame to show, 20 a second, idle between replies, until `shutdown()` or cancellation.
    public func frames(audioClock: (@Sendable () -> Double?)? = nil) -> AsyncStream<Expression2Frame> {
        AsyncStream(unfolding: { [weak self] in
            guard let engine = self else { return nil }
            return await engine.nextFrame(audioClock: audioClock)
        })
    }

    /// Reply starts and ends, each once per reply, as frames are handed out; finishes on `shutdown()`.
    public func events() -> AsyncStream<Expression2Event> {
        let source = inner.events()
        let (stream, continuation) = AsyncStream<Expression2Event>.makeStream()
        let task = Task {
            for await event in source {
                continuation.yield(event == .replyStarted ? .replyStarted : .replyEnded)
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    static func frame(_ f: Essence2Frame) -> Expression2Frame {
        Expression2Frame(bgr: f.bgr, width: f.width, height: f.height, isSpeech: f.isSpeech, endsReply: f.endsReply,
                         index: f.index, audioTime: f.audioTime, audio: f.audio, reply: f.reply,
                         replyFrame: f.replyFrame, skippedBefore: f.skippedBefore)
    }

    // MARK: State

    /// Whether frames can flow (the first frame has rendered).
    public var isReady: Bool { inner.isReady }

    /// Speech fed and not yet turned into frames (the tail of a reply still to render).
    public var hasPendingTail: Bool { inner.pendingSamples > 0 }

    /// Frames rendered and due to be handed out now.
    public var queuedFrames: Int { inner.engine.framesAvailable() }

    /// Frames skipped to keep a reply on its audio's timeline.
    public var droppedFrames: Int { inner.droppedFrames }

    /// Why the metering service's session refuses frames now; nil while frames flow (and when unmetered).
    public var meteringRefusal: String? { inner.meteringRefusal }

    /// Frames as fast as they render (`true`: files, tests) instead of 20 a second (the default). Beyond the
    /// reference.
    public var unpaced: Bool {
        get { inner.pacing == .unpaced }
        set { inner.pacing = newValue ? .unpaced : .realtime }
    }

    /// Seeds the idle motion of the frames planned from now on. Beyond the reference.
    public func setSeed(_ seed: UInt64) {
        inner.setSeed(seed)
    }

    /// Stops the engine: no more frames, every stream finishes; waits for the last usage report (at most 2 s).
    public func shutdown() {
        inner.shutdown()
    }
}
