import Essence2Runtime

extension Essence2Engine {
    /// Seconds of audio per frame (0.04).
    static let frameSeconds = 1 / Double(StreamFormat.framesPerSecond)

    // MARK: Taking frames

    /// The next frame, if one is due now; never waits.
    /// - Parameter audioClock: seconds of the current reply's audio played so far (nil before it starts). With
    ///   it, a speech frame is handed out once the clock reaches its `audioTime` (the first one at once, so the
    ///   audio can start on it), and a speech frame the clock has passed by a full frame is dropped and counted
    ///   in `droppedFrames`. Without it, frames come as the engine's pacing hands them out.
    public func pullFrame(audioClock: (@Sendable () -> Double?)? = nil) -> Essence2Frame? {
        let (frame, events) = state.withLock { s -> (Essence2Frame?, [(AsyncStream<Essence2Event>.Continuation, Essence2Event)]) in
            var events: [(AsyncStream<Essence2Event>.Continuation, Essence2Event)] = []
            let frame = take(&s, audioClock: audioClock, idleOnly: false, events: &events)
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

    /// Writes the next idle frame (mouth at rest, idle motion going on, whatever the reply state; for showing
    /// while not ready) into `buffer`, resized to a frame, under the same 25-a-second pacing. Returns the bytes
    /// written, 0 when none is due.
    public func idle(into buffer: inout [UInt8]) -> Int {
        let (frame, events) = state.withLock { s -> (Essence2Frame?, [(AsyncStream<Essence2Event>.Continuation, Essence2Event)]) in
            var events: [(AsyncStream<Essence2Event>.Continuation, Essence2Event)] = []
            let frame = take(&s, audioClock: nil, idleOnly: true, events: &events)
            return (frame, events)
        }
        for (continuation, event) in events { continuation.yield(event) }
        guard let frame else { return 0 }
        buffer = frame.bgr
        return frame.bgr.count
    }

    // MARK: Inside

    /// Moves every frame the engine hands out now into the ready queue, then hands out the first that may go.
    private func take(_ s: inout KitState, audioClock: (@Sendable () -> Double?)?, idleOnly: Bool,
                      events: inout [(AsyncStream<Essence2Event>.Continuation, Essence2Event)]) -> Essence2Frame? {
        guard !s.isShutDown else { return nil }
        if idleOnly {
            return takeFromEngine(&s, idleOnly: true, events: &events)
        }
        while let frame = takeFromEngine(&s, idleOnly: false, events: &events) {
            s.ready.append(frame)
            if s.ready.count > KitState.readyLimit { s.ready.removeFirst() }
            // Without an audio clock a frame goes out as soon as it is due: take one at a time.
            if audioClock == nil { break }
        }
        s.feed.pump(into: engine)
        while let first = s.ready.first {
            guard first.isSpeech, let audioClock else {
                s.ready.removeFirst()
                return first
            }
            guard let played = audioClock() else {
                // The reply's audio has not started: its first frame goes out, so the audio can start on it.
                guard first.audioTime == 0 else { return nil }
                s.ready.removeFirst()
                return first
            }
            if played >= first.audioTime + Self.frameSeconds {
                s.ready.removeFirst()
                s.dropped += 1
                continue
            }
            guard played >= first.audioTime else { return nil }
            s.ready.removeFirst()
            return first
        }
        return nil
    }

    /// One frame from the engine, if it hands one out now, with its reply events collected.
    private func takeFromEngine(_ s: inout KitState, idleOnly: Bool,
                                events: inout [(AsyncStream<Essence2Event>.Continuation, Essence2Event)]) -> Essence2Frame? {
        let outcome = s.scratch.withUnsafeMutableBytes { engine.take(into: $0, idleOnly: idleOnly) }
        guard case .frame(let taken) = outcome else { return nil }
        let bytes = Array(s.scratch[0..<min(taken.bytes, s.scratch.count)])
        let endsReply = taken.repliesEnded > s.repliesEnded
        if endsReply {
            s.repliesEnded = taken.repliesEnded
            for continuation in s.events.values { events.append((continuation, .replyEnded)) }
        }
        if taken.repliesStarted > s.repliesStarted {
            s.repliesStarted = taken.repliesStarted
            for continuation in s.events.values { events.append((continuation, .replyStarted)) }
        }
        let isSpeech = taken.kind == .speech
        return Essence2Frame(bgr: bytes, width: width, height: height, isSpeech: isSpeech, endsReply: endsReply,
                             index: taken.kind == .idle ? -1 : taken.index,
                             audioTime: isSpeech ? Double(taken.index) * Self.frameSeconds : 0)
    }
}
