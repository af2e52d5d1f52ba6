import Essence2Runtime

extension Essence2Engine {
    // MARK: Taking frames

    /// The next frame, if one is due now; never waits. nil means keep showing the current one.
    /// - Parameter audioClock: seconds of the current reply's audio played so far (nil before it starts). With
    ///   it (in realtime pacing), speech frames follow that clock instead of the wall clock: the reply's first
    ///   frame comes at once (start its audio on it), frame k once the clock reaches its `audioTime`, and a frame
    ///   whose audio the clock has wholly passed is skipped (counted in `droppedFrames`). The engine keeps that
    ///   gate (its audio-clock pacing); the clock is read once per call. Without it, frames come as the
    ///   engine's pacing hands them out.
    public func pullFrame(audioClock: (@Sendable () -> Double?)? = nil) -> Essence2Frame? {
        let paced = engine.pacing
        if paced != .unpaced {
            let wanted: Pacing = audioClock == nil ? .realtime : .audioClock
            if paced != wanted { engine.setPacing(wanted) }
            if let audioClock, let played = audioClock(), played.isFinite, played >= 0 {
                engine.setPlayoutPosition(Int64(min(played, 1e9) * Double(StreamFormat.sampleRate)))
            }
        }
        let (frame, events) = state.withLock { s -> (Essence2Frame?, [(AsyncStream<Essence2Event>.Continuation, Essence2Event)]) in
            var events: [(AsyncStream<Essence2Event>.Continuation, Essence2Event)] = []
            let frame = take(&s, events: &events)
            return (frame, events)
        }
        for (continuation, event) in events { continuation.yield(event) }
        return frame
    }

    /// Waits for the next frame (`pullFrame` on a short poll); nil once the engine is shut down or the task is
    /// cancelled.
    public func nextFrame(audioClock: (@Sendable () -> Double?)? = nil) async -> Essence2Frame? {
        while true {
            if let frame = pullFrame(audioClock: audioClock) { return frame }
            if Task.isCancelled || state.withLock({ $0.isShutDown }) { return nil }
            await clock.sleep(until: clock.nanoseconds() + Self.pollInterval)
        }
    }

    /// Every frame, 25 a second in realtime pacing (idle between replies), until `shutdown()` or until the
    /// consuming task is cancelled. With `audioClock`, speech frames follow it as `pullFrame` describes. The
    /// stream is pulled: a frame is taken from the engine when the consumer asks for the next one, so none is
    /// lost or queued however slowly the consumer goes (in realtime pacing a slow consumer misses the frames
    /// that fell a full period late, counted in `droppedFrames`).
    public func frames(audioClock: (@Sendable () -> Double?)? = nil) -> AsyncStream<Essence2Frame> {
        // The stream holds the engine weakly: dropping the engine (or cancelling the consumer) ends it.
        AsyncStream(unfolding: { [weak self] in
            guard let engine = self else { return nil }
            return await engine.nextFrame(audioClock: audioClock)
        })
    }

    /// `frames(audioClock:)` following `playout`'s played position.
    public func frames(following playout: any Essence2Playout) -> AsyncStream<Essence2Frame> {
        frames(audioClock: { playout.secondsPlayed })
    }

    /// Reply starts and ends, each exactly once per reply, as frames are handed out; finishes on `shutdown()`.
    public func events() -> AsyncStream<Essence2Event> {
        let (stream, continuation) = AsyncStream<Essence2Event>.makeStream()
        let id = state.withLock { s -> UInt64? in
            guard !s.isShutDown else { return nil }
            s.nextStreamID += 1
            s.events[s.nextStreamID] = continuation
            return s.nextStreamID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.events.removeValue(forKey: id) }
        }
        return stream
    }

    /// The next due frame's pixels and whether it is a speech frame; nil when none is due.
    public func pull() -> (frame: [UInt8], speech: Bool)? {
        pullFrame().map { ($0.bgr, $0.isSpeech) }
    }

    /// The next frame into `out` (resized to a frame), as `pullFrame()` takes it: an idle frame between
    /// replies, a reply's frame during one. Returns the bytes written; 0 means keep showing the current one.
    public func idle(into out: inout [UInt8]) -> Int {
        guard let frame = pullFrame() else { return 0 }
        out = frame.bgr
        return frame.bgr.count
    }

    // MARK: Inside

    /// One frame from the engine, if it hands one out now, with its reply events collected.
    private func take(_ s: inout KitState, events: inout [(AsyncStream<Essence2Event>.Continuation, Essence2Event)])
        -> Essence2Frame?
    {
        guard !s.isShutDown else { return nil }
        let outcome = s.scratch.withUnsafeMutableBytes { engine.take(into: $0) }
        guard case .frame(let taken) = outcome else { return nil }
        if taken.repliesEnded > s.repliesEnded {
            s.repliesEnded = taken.repliesEnded
            for continuation in s.events.values { events.append((continuation, .replyEnded)) }
        }
        if taken.repliesStarted > s.repliesStarted {
            s.repliesStarted = taken.repliesStarted
            for continuation in s.events.values { events.append((continuation, .replyStarted)) }
        }
        let record = taken.record
        return Essence2Frame(bgr: Array(s.scratch[0..<min(taken.bytes, s.scratch.count)]), width: width, height: height,
                             isSpeech: record.kind == .speech, endsReply: record.endsReply, index: Int(record.sequence),
                             audioTime: record.audioTime, audio: record.audio, reply: Int(record.reply),
                             replyFrame: record.replyFrame, skippedBefore: Int(record.skippedBefore))
    }
}
