import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The shared heart of an engine: its state under a lock, the render thread's wake-up signal, and the thread.
/// The render thread holds its own reference, so it can finish after the `Engine` is gone.
final class EngineCore: Sendable {
    let state: Locked<EngineState>
    let clock: any MonotonicClock
    let avatar: Avatar
    private let wakeSignal = DispatchSemaphore(value: 0)
    private let exitSignal = DispatchSemaphore(value: 0)
    private let exited = Atomic<Bool>(false)
    /// Cancelled by `stop`: the renderer leaves the frame it is drawing at its next band.
    private let cancellation = RenderCancellation()
    /// The host's frame descriptor, once asked for (`frameDescriptor()`); kept level with `available`.
    private let signal = Locked<FrameSignal?>(nil)

    init(avatar: Avatar, clock: any MonotonicClock, weights: LipSyncWeights = .shipped) {
        self.avatar = avatar
        self.clock = clock
        state = Locked(EngineState(avatar: avatar, weights: weights))
    }

    func wake() {
        wakeSignal.signal()
    }

    /// Stops the engine; false when it was already stopped.
    @discardableResult
    func stop() -> Bool {
        let wasRunning = state.withLock { s -> Bool in
            let running = !s.stopped
            s.stop()
            return running
        }
        cancellation.cancel()
        wake()
        return wasRunning
    }

    /// Closes the frame descriptor, if one was made (the engine is being destroyed): at once, not when the
    /// render thread ends. For when the engine can no longer be reached (`be_essence2_destroy`).
    func closeFrameDescriptor() {
        let closing = signal.withLock { current -> FrameSignal? in
            defer { current = nil }
            return current
        }
        closing?.close()
    }

    /// The descriptor that is readable while a frame can be pulled, created on the first call.
    func frameDescriptor() -> Result<Int32, FrameSignalError> {
        let made = signal.withLock { current -> Result<FrameSignal, FrameSignalError> in
            if let current { return .success(current) }
            var reason = ""
            guard let created = FrameSignal(reason: &reason) else { return .failure(FrameSignalError(reason: reason)) }
            current = created
            return .success(created)
        }
        guard case .success(let frames) = made else {
            if case .failure(let error) = made { return .failure(error) }
            return .failure(FrameSignalError(reason: "no frame descriptor"))
        }
        let now = clock.nanoseconds()
        frames.set(state.withLock { $0.available(now: now) } > 0)
        wake()  // the render thread keeps it level from now on
        return .success(frames.descriptor)
    }

    func take(into out: UnsafeMutableRawBufferPointer, idleOnly: Bool) -> Engine.TakeOutcome {
        let now = clock.nanoseconds()
        let frames = signal.withLock { $0 }
        let (result, needsPlanning, stillAvailable, shown) = state.withLock { s in
            s.needsPlanning = false
            let result = s.take(now: now, idleOnly: idleOnly, capacity: out.count)
            let available = frames == nil ? false : s.available(now: now) > 0
            var shown: Engine.TakenFrame?
            if case .frame(let buffer, let kind) = result, let last = s.lastShown {
                shown = Engine.TakenFrame(kind: kind, bytes: buffer.bytes.count, index: last.index, replyID: last.replyID,
                                          repliesStarted: s.tracker.started, repliesEnded: s.tracker.ended,
                                          record: s.lastRecord ?? .idle(sequence: 0))
            }
            return (result, s.needsPlanning, available, shown)
        }
        frames?.set(stillAvailable)
        switch result {
        case .notDue:
            if needsPlanning { wake() }
            return .notDue
        case .tooSmall:
            return .bufferTooSmall
        case .frame(let buffer, let kind):
            let count = buffer.bytes.count
            if let target = out.baseAddress, let source = buffer.bytes.baseAddress {
                target.copyMemory(from: source, byteCount: count)
            }
            state.withLock { $0.recycle(buffer) }
            wake()
            return .frame(shown ?? Engine.TakenFrame(kind: kind, bytes: count, index: -1, replyID: 0,
                                                     repliesStarted: 0, repliesEnded: 0, record: .idle(sequence: 0)))
        }
    }

    // MARK: Render thread

    func startThread() {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { raw in
            do {
                let core = Unmanaged<EngineCore>.fromOpaque(raw!).takeRetainedValue()
                core.renderLoop()
            }
            // The renderer is gone (and the engine too, when this thread held it last): its memory back.
            ProcessMemory.returnFreed()
            return nil
        }, context)
        if started == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<EngineCore>.fromOpaque(context).release()
            state.withLock { s in
                s.renderFailures += 1
                s.failureReason = "could not start the render thread (pthread_create: \(started))"
            }
            markExited()
        }
    }

    private func renderLoop() {
        defer { markExited() }
        if cancellation.isCancelled { return }  // destroyed before the thread ran: no renderer to build
        let renderer = avatar.makeRenderer(cancellation: cancellation)
        if cancellation.isCancelled { return }  // destroyed while the renderer was built: it may be unfinished
        while true {
            let now = clock.nanoseconds()
            let frames = signal.withLock { $0 }
            let (job, busy, stopped, available, nextDue) = state.withLock { s -> (RenderJob?, Bool, Bool, Bool, Int64?) in
                if s.stopped { return (nil, false, true, false, nil) }
                let busy = s.plan(now: now)
                let available = frames == nil ? false : s.available(now: now) > 0
                let nextDue = s.pacing.isPaced ? s.clock.nextDue.map { $0 - FrameClock.earlyTolerance } : nil
                return (s.nextJob(), busy, false, available, nextDue)
            }
            frames?.set(available)
            if stopped { return }
            guard let job else {
                // Waiting for audio, for a pull, or (realtime) for a frame's due time; with a frame descriptor,
                // wake when the next frame falls due so the descriptor becomes readable on time.
                var waitNanoseconds: Int64 = busy ? 4_000_000 : 50_000_000
                if frames != nil, !available, let nextDue, nextDue > now {
                    waitNanoseconds = min(waitNanoseconds, nextDue - now + 500_000)
                }
                _ = wakeSignal.wait(timeout: .now() + .nanoseconds(Int(waitNanoseconds)))
                continue
            }
            guard let buffer = job.buffer ?? FrameBuffer(count: job.bytes, mode: job.mode) else {
                state.withLock { $0.fail(id: job.id, reason: "out of memory for a frame of \(job.bytes) bytes") }
                _ = wakeSignal.wait(timeout: .now() + .milliseconds(100))
                continue
            }
            buffer.drawn = renderer.render(job.params, mode: job.mode, into: buffer.bytes, over: buffer.drawn)
            let finishedAt = clock.nanoseconds()
            let ready = state.withLock { s -> Bool in
                s.finish(id: job.id, buffer: buffer)
                return frames == nil ? false : s.available(now: finishedAt) > 0
            }
            frames?.set(ready)
        }
    }

    private func markExited() {
        exited.store(true, ordering: .releasing)
        exitSignal.signal()
    }

    func waitUntilExited(deadline: Int64) -> Bool {
        while !exited.load(ordering: .acquiring) {
            let left = deadline - clockNow()
            guard left > 0 else { return false }
            _ = exitSignal.wait(timeout: .now() + .nanoseconds(Int(min(left, 50_000_000))))
        }
        exitSignal.signal()  // let other waiters through too
        return true
    }

    /// Real time, for waits (the injected clock may be virtual).
    private func clockNow() -> Int64 { SystemClock().nanoseconds() }
}
