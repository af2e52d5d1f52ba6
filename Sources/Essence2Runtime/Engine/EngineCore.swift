import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The shared heart of an engine: its state under a lock, the render thread's wake-up signal, and the thread.
/// The render thread holds its own reference, so it can finish after the `Engine` is gone.
final class EngineCore: Sendable {
    let state: Mutex<EngineState>
    let clock: any MonotonicClock
    let avatar: Avatar
    private let wakeSignal = DispatchSemaphore(value: 0)
    private let exitSignal = DispatchSemaphore(value: 0)
    private let exited = Atomic<Bool>(false)

    init(avatar: Avatar, clock: any MonotonicClock) {
        self.avatar = avatar
        self.clock = clock
        state = Mutex(EngineState(avatar: avatar))
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
        wake()
        return wasRunning
    }

    func take(into out: UnsafeMutableRawBufferPointer, idleOnly: Bool) -> Engine.PullResult {
        let now = clock.nanoseconds()
        let (result, needsPlanning) = state.withLock { s in
            s.needsPlanning = false
            let result = s.take(now: now, idleOnly: idleOnly, capacity: out.count)
            return (result, s.needsPlanning)
        }
        switch result {
        case .notDue:
            if needsPlanning { wake() }
            return .notDue
        case .tooSmall:
            return .bufferTooSmall
        case .frame(let buffer, let kind):
            let count = buffer.bytes.count
            out.baseAddress!.copyMemory(from: buffer.bytes.baseAddress!, byteCount: count)
            state.withLock { $0.recycle(buffer) }
            wake()
            return .frame(kind, bytes: count)
        }
    }

    // MARK: Render thread

    func startThread() {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { raw in
            let core = Unmanaged<EngineCore>.fromOpaque(raw!).takeRetainedValue()
            core.renderLoop()
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
        let renderer = Renderer(avatar: avatar)
        while true {
            let now = clock.nanoseconds()
            let (job, busy, stopped) = state.withLock { s -> (RenderJob?, Bool, Bool) in
                if s.stopped { return (nil, false, true) }
                let busy = s.plan(now: now)
                return (s.nextJob(), busy, false)
            }
            if stopped { return }
            guard let job else {
                // Waiting for audio, for a pull, or (realtime) for a frame's due time.
                _ = wakeSignal.wait(timeout: .now() + .milliseconds(busy ? 4 : 50))
                continue
            }
            guard let buffer = job.buffer ?? FrameBuffer(count: job.bytes, mode: job.mode) else {
                state.withLock { $0.fail(id: job.id, reason: "out of memory for a frame of \(job.bytes) bytes") }
                _ = wakeSignal.wait(timeout: .now() + .milliseconds(100))
                continue
            }
            renderer.render(job.params, mode: job.mode, into: buffer.bytes)
            state.withLock { $0.finish(id: job.id, buffer: buffer) }
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
