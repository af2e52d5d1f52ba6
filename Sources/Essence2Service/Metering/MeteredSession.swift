import Essence2Runtime
#if canImport(Glibc)
import Glibc
#endif

/// Drives one engine's `SessionMeter`: frames ask it and count in it (never waiting), and a background thread
/// sends the requests it asks for, one at a time, and feeds it the replies. Only `waitForStart` and `finish`
/// with a deadline wait, bounded.
///
/// `@unchecked Sendable`: the meter and the flags are only touched under `mutex`.
package final class MeteredSession: FrameGate, @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var meter: SessionMeter
    private var latestRefusal: String?
    private let transport: any ServiceTransport
    private let clock: any MonotonicClock
    private let secret: String
    private let openBody: String
    private let startTimeoutMs: Int
    /// Total timeout of a report (the final one after `finish` gets `finalTimeoutMs`).
    static let reportTimeoutMs = 10_000
    static let finalTimeoutMs = 2_000
    /// The longest the background thread sleeps before looking at the meter again.
    static let pollNanoseconds: Int64 = 500_000_000

    package init(meter: SessionMeter, transport: any ServiceTransport, secret: String, openBody: String,
                 startTimeoutMs: Int, clock: any MonotonicClock = SystemClock()) {
        self.meter = meter
        self.transport = transport
        self.secret = secret
        self.openBody = openBody
        self.startTimeoutMs = startTimeoutMs
        self.clock = clock
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    // MARK: The background thread

    /// Starts the thread that sends the requests (it holds the session until nothing is left to send).
    package func startThread() -> Bool {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { raw in
            let session = Unmanaged<MeteredSession>.fromOpaque(raw!).takeRetainedValue()
            session.run()
            return nil
        }, context)
        guard started == 0 else {
            Unmanaged<MeteredSession>.fromOpaque(context).release()
            return false
        }
        pthread_detach(thread)
        return true
    }

    private func run() {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !meter.isDone {
            let now = clock.nanoseconds()
            if let request = meter.nextRequest(now: now) {
                let finishing = meter.isFinishing
                pthread_mutex_unlock(mutex)
                let reply = send(request, finishing: finishing)
                var wall = timespec()
                clock_gettime(CLOCK_REALTIME, &wall)
                pthread_mutex_lock(mutex)
                meter.receive(reply, now: clock.nanoseconds(), unixSeconds: Int64(wall.tv_sec))
                pthread_cond_broadcast(condition)
                continue
            }
            let wake = min(meter.nextDeadline() ?? .max, now + Self.pollNanoseconds)
            if wake > now { wait(nanoseconds: wake - now) }
        }
        pthread_cond_broadcast(condition)
    }

    private func send(_ request: MeterRequest, finishing: Bool) -> MeterReply {
        let body: String
        let timeout: Int
        switch request {
        case .open:
            body = openBody
            timeout = startTimeoutMs
        case .usage(_, let figures, let final):
            body = ServiceMessages.usageBody(figures, final: final)
            timeout = finishing ? Self.finalTimeoutMs : Self.reportTimeoutMs
        }
        switch transport.post(path: ServiceMessages.path(request), body: body, secret: secret, timeoutMs: timeout) {
        case .answered(let status, let bytes):
            return ServiceMessages.reply(to: request, status: status, body: bytes)
        case .failed(let reason):
            return .unreachable(reason: reason)
        }
    }

    /// Waits on the condition for at most `nanoseconds` of the monotonic clock (the mutex held).
    private func wait(nanoseconds: Int64) {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let total = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec) + nanoseconds
        var deadline = timespec(tv_sec: Int(total / 1_000_000_000), tv_nsec: Int(total % 1_000_000_000))
        pthread_cond_timedwait(condition, mutex, &deadline)
    }

    // MARK: Starting and ending

    /// The first check's state.
    package var start: MeterStart { locked { meter.start } }

    /// Waits (at most the start timeout and a margin, on the monotonic clock) for the first check. A check
    /// still pending then is given up: refused, with that reason.
    package func waitForStart() -> MeterStart {
        let deadline = SystemClock().nanoseconds() + Int64(startTimeoutMs + 250) * 1_000_000
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while meter.start == .pending {
            let now = SystemClock().nanoseconds()
            if now >= deadline { break }
            wait(nanoseconds: min(deadline - now, Self.pollNanoseconds))
        }
        if meter.start == .pending { giveUpLocked() }
        return meter.start
    }

    /// Gives up a first check still pending (its session, if it opens later, is closed at once).
    package func giveUpStart() -> MeterStart {
        locked {
            if meter.start == .pending { giveUpLocked() }
            return meter.start
        }
    }

    private func giveUpLocked() {
        meter.finish(startRefusal: "the metering service at \(meter.service) did not answer within \(startTimeoutMs) ms "
                     + "(ESSENCE2_SERVICE_TIMEOUT_MS); a session starts only once it has accepted the API secret")
        pthread_cond_broadcast(condition)
    }

    /// The engine is gone: sends the final report, waiting for it at most until `deadline` (monotonic ns of
    /// the system clock; nil: do not wait). Idempotent.
    package func finish(waitUntil deadline: Int64?) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if !meter.isFinishing { meter.finish() }
        pthread_cond_broadcast(condition)
        guard let deadline else { return }
        while !meter.isDone {
            let now = SystemClock().nanoseconds()
            if now >= deadline { break }
            wait(nanoseconds: min(deadline - now, Self.pollNanoseconds))
        }
    }

    // MARK: Frames

    /// Whether a frame may be handed out now; records a refusal for `be_essence2_last_refusal`.
    package func permission() -> MeterPermission {
        let now = clock.nanoseconds()
        let (permission, wake) = locked { () -> (MeterPermission, Bool) in
            let permission = meter.permission(now: now)
            if case .refused(let reason) = permission { latestRefusal = reason } else { latestRefusal = nil }
            return (permission, (meter.nextDeadline() ?? .max) <= now)
        }
        if wake { pthread_cond_broadcast(condition) }
        if case .refused(let reason) = permission { Credentials.recordRefusal(reason) }
        return permission
    }

    /// A frame of `kind` was handed out.
    package func delivered(_ kind: FrameKind) {
        let now = clock.nanoseconds()
        let wake = locked { () -> Bool in
            meter.delivered(kind, now: now)
            return (meter.nextDeadline() ?? .max) <= now
        }
        if wake { pthread_cond_broadcast(condition) }
    }

    /// Why the latest frame asked for was refused; nil when it was not.
    package var refusal: String? { locked { latestRefusal } }

    /// The current session's figures (tests, diagnostics).
    package var figures: UsageFigures { locked { meter.figures } }
}
