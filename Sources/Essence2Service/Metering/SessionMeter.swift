import Essence2Runtime
/// The session contract of one engine (docs/sessions.md), as a pure state machine on an injected clock: it
/// reads no clock, sends nothing and never waits. Its driver (`MeteredSession`) feeds it the time, the frames
/// handed out and the service's replies, and sends the requests it asks for, one at a time.
///
/// - A session starts with `open` (the secret and the avatar checked); the engine starts only once it is
///   accepted (`start`). No secret, 401, 403 or no answer at start refuse it.
/// - Usage is reported every `report_interval_s` of wall time or of rendered video, whichever comes first,
///   in whole seconds of rendered video (40 ms a frame).
/// - When a request fails after acceptance, frames go on for `graceFrames` (5 minutes of rendered video),
///   then are refused until a request succeeds again; failed requests are retried every `retryNanoseconds`.
/// - 401 (or 403) after acceptance is final: every frame is refused from then on.
/// - No frame asked for during `idleCloseNanoseconds` (wall time): the session is closed with a final report;
///   the next frame asked for opens a new one and is served while that check is pending (the secret was
///   accepted once); frames until it is accepted count in the new session.
package struct SessionMeter: Sendable {
    /// Frames handed out without the service once it stopped answering: 5 minutes of rendered video.
    package static let graceFrames: Int64 = 7_500
    /// No frames asked for during this long (wall time) closes the session: 60 s.
    package static let idleCloseNanoseconds: Int64 = 60_000_000_000
    /// How often a failed request is tried again: 2 s.
    package static let retryNanoseconds: Int64 = 2_000_000_000
    /// The report interval used until the service gives one (and for absurd values it gives).
    package static let defaultReportSeconds = 30

    private enum Phase: Sendable, Equatable {
        /// The first check is pending (create waits for it).
        case starting
        /// A session is open on the service.
        case open(sessionID: String)
        /// The previous session was closed (idle); none is open and no frame has been asked for since.
        case closed
        /// A new session is being opened (frames are served meanwhile).
        case reopening
        /// Refused for good: no more frames from this engine.
        case refused(reason: String)
        /// The engine is gone (destroy, shutdown): only the final report is left to send.
        case finished
    }

    /// The service, as named in reasons ("the metering service at http://...").
    package let service: String
    private var phase: Phase
    package private(set) var start: MeterStart
    /// The figures of the current session (or of the one being opened).
    package private(set) var figures = UsageFigures()
    /// The figures the service acknowledged for the current session.
    private var acknowledged = UsageFigures()
    /// The final report of a session closed while another request was due, with its figures.
    private var pendingFinal: (sessionID: String, figures: UsageFigures)?
    private var inFlight: MeterRequest?
    private var reportNanoseconds = Int64(defaultReportSeconds) * 1_000_000_000
    private var reportFrames = Int64(defaultReportSeconds * StreamFormat.framesPerSecond)
    private var nextReportAt: Int64
    private var framesAtLastReport: Int64 = 0
    /// When requests started failing (monotonic ns, Unix seconds) and why; nil while the service answers.
    private var unreachable: (since: Int64, unixSeconds: Int64, reason: String)?
    /// Frames handed out since `unreachable` began.
    package private(set) var framesWhileUnreachable: Int64 = 0
    private var retryAt: Int64 = .min
    private var lastAsked: Int64

    /// A meter whose first check is due now; without a secret it is refused at once and sends nothing.
    package init(service: String, hasSecret: Bool, now: Int64) {
        self.service = service
        nextReportAt = now
        lastAsked = now
        if hasSecret {
            phase = .starting
            start = .pending
        } else {
            let reason = "no API secret: the metering service at \(service) needs one (set ESSENCE2_API_SECRET, "
                + "or call be_essence2_set_api_secret() / Essence2Credential.set())"
            phase = .refused(reason: reason)
            start = .refused(reason: reason)
        }
    }

    // MARK: Frames

    /// Asks whether a frame may be handed out now. A refused ask counts as the host being there (as a frame
    /// handed out does); an allowed one that finds no frame due does not.
    package mutating func permission(now: Int64) -> MeterPermission {
        switch phase {
        case .refused(let reason):
            return .refused(reason: reason)
        case .finished:
            // Only a stopped engine finishes its session, and it hands out no frames (its calls return 0, as
            // before metering): nothing to refuse, and nothing is counted.
            return .allowed
        case .starting:
            return .refused(reason: "the session's first check with the metering service at \(service) has not answered")
        case .closed:
            // The previous session closed after 60 s without frames: this frame starts a new one.
            phase = .reopening
            acknowledged = UsageFigures()
        case .open, .reopening:
            break
        }
        if let unreachable, framesWhileUnreachable >= Self.graceFrames {
            // Refused frames count as the host being there: the session is not idle-closed meanwhile.
            lastAsked = now
            return .refused(reason: "the metering service at \(service) has been unreachable since "
                + "\(UTCTime.iso8601(unreachable.unixSeconds)) (\(unreachable.reason)), and the 5 minutes of rendered "
                + "video (\(Self.graceFrames) frames) allowed without it are used up; frames resume as soon as it "
                + "answers again")
        }
        return .allowed
    }

    /// A frame of `kind` was handed out (after `permission` allowed it).
    package mutating func delivered(_ kind: FrameKind, now: Int64) {
        switch phase {
        case .open, .reopening, .closed:
            figures.count(kind)
            if unreachable != nil { framesWhileUnreachable += 1 }
            lastAsked = now
        case .starting, .refused, .finished:
            break
        }
    }

    // MARK: Requests

    /// The request to send now, if any (at most one is in flight; the driver sends it and calls `receive`).
    package mutating func nextRequest(now: Int64) -> MeterRequest? {
        guard inFlight == nil, now >= retryAt else { return nil }
        let request = chooseRequest(now: now)
        inFlight = request
        return request
    }

    private mutating func chooseRequest(now: Int64) -> MeterRequest? {
        if case .open(let id) = phase, now - lastAsked >= Self.idleCloseNanoseconds {
            // Nobody took frames for 60 s: the session ends, billed to here.
            pendingFinal = (id, figures)
            phase = .closed
            figures = UsageFigures()
            acknowledged = UsageFigures()
        }
        if let pendingFinal {
            return .usage(sessionID: pendingFinal.sessionID, figures: pendingFinal.figures, final: true)
        }
        switch phase {
        case .starting, .reopening:
            if case .reopening = phase, now - lastAsked >= Self.idleCloseNanoseconds {
                // Never reopened and nobody asks any more: wait for the next frame asked for.
                phase = .closed
                return nil
            }
            return .open
        case .open(let id):
            let due = now >= nextReportAt || figures.frames - framesAtLastReport >= reportFrames
            guard due else { return nil }
            if figures.reported != acknowledged.reported || unreachable != nil {
                return .usage(sessionID: id, figures: figures, final: false)
            }
            nextReportAt = now + reportNanoseconds
            framesAtLastReport = figures.frames
            return nil
        case .closed, .refused, .finished:
            return nil
        }
    }

    /// When `nextRequest` may next have something to send (monotonic ns): the driver sleeps until then, or
    /// until a frame or `finish` wakes it. nil: nothing until then.
    package func nextDeadline() -> Int64? {
        guard inFlight == nil else { return nil }
        if pendingFinal != nil { return retryAt }
        switch phase {
        case .starting, .reopening: return retryAt
        case .open:
            if figures.frames - framesAtLastReport >= reportFrames { return retryAt }
            return max(retryAt, min(nextReportAt, lastAsked + Self.idleCloseNanoseconds))
        case .closed, .refused, .finished: return nil
        }
    }

    /// Whether nothing is left to send: the engine is gone and its final report was sent (or given up).
    package var isDone: Bool {
        switch phase {
        case .finished, .refused: return inFlight == nil && pendingFinal == nil
        default: return false
        }
    }

    // MARK: Replies

    /// The service's reply to the request in flight. `unixSeconds` is the wall time, for reasons only.
    package mutating func receive(_ reply: MeterReply, now: Int64, unixSeconds: Int64 = 0) {
        guard let request = inFlight else { return }
        inFlight = nil
        switch (request, reply) {
        case (.open, .opened(let id, let interval)):
            answered()
            let seconds = (1...3_600).contains(interval) ? interval : Self.defaultReportSeconds
            reportNanoseconds = Int64(seconds) * 1_000_000_000
            reportFrames = Int64(seconds * StreamFormat.framesPerSecond)
            nextReportAt = now + reportNanoseconds
            framesAtLastReport = 0
            acknowledged = UsageFigures()
            switch phase {
            case .starting:
                start = .accepted
                phase = .open(sessionID: id)
            case .reopening:
                phase = .open(sessionID: id)
            case .finished, .refused, .closed, .open:
                // Opened for an engine that is gone (or no longer needs it): close it at once.
                pendingFinal = (id, figures)
                figures = UsageFigures()
            }
        case (.usage(let id, let sent, let final), .reported):
            answered()
            if final {
                if pendingFinal?.sessionID == id { pendingFinal = nil }
            } else if case .open(let open) = phase, open == id {
                acknowledged = sent
                nextReportAt = now + reportNanoseconds
                framesAtLastReport = sent.frames
            }
        case (_, .invalidSecret(let reason)):
            answered()
            let rejected = "the metering service at \(service) rejected the API secret (401 INVALID_SECRET: \(reason))"
            refuse(request == .open && start == .pending ? rejected
                   : rejected + " during the session; this is final for this engine: destroy it")
        case (_, .notEntitled(let reason)):
            answered()
            refuse("AGENT_NOT_ENTITLED: the account may not use this avatar (403 from the metering service at "
                   + "\(service): \(reason))" + (start == .pending ? "; nothing was billed" : ""))
        case (.usage(let id, _, let final), .sessionGone):
            answered()
            if final {
                if pendingFinal?.sessionID == id { pendingFinal = nil }
            } else if case .open(let open) = phase, open == id {
                // The service closed it: what it has not acknowledged goes into a new session.
                figures = figures.subtracting(acknowledged)
                acknowledged = UsageFigures()
                phase = .reopening
            }
        case (.open, .unreachable(let reason)) where start == .pending:
            refuse("the metering service at \(service) is unreachable (\(reason)); a session starts only once it "
                   + "has accepted the API secret")
        case (_, .unreachable(let reason)):
            failed(reason: reason, now: now, unixSeconds: unixSeconds)
        default:
            failed(reason: "the service's answer did not match the request", now: now, unixSeconds: unixSeconds)
        }
    }

    /// The engine is gone: the open session gets its final report (the only request left), nothing else.
    /// A first check still pending is refused with `startRefusal` (create gave up waiting).
    package mutating func finish(startRefusal: String = "the engine was released before its session started") {
        switch phase {
        case .open(let id):
            pendingFinal = (id, figures)
        case .starting:
            start = .refused(reason: startRefusal)
        default: break
        }
        if case .refused = phase {} else { phase = .finished }
        retryAt = .min
    }

    /// Whether `finish` was called (or the session was refused for good).
    package var isFinishing: Bool {
        switch phase {
        case .finished, .refused: return true
        default: return false
        }
    }

    private mutating func answered() {
        unreachable = nil
        framesWhileUnreachable = 0
        retryAt = .min
    }

    private mutating func refuse(_ reason: String) {
        phase = .refused(reason: reason)
        if start == .pending { start = .refused(reason: reason) }
        pendingFinal = nil
    }

    private mutating func failed(reason: String, now: Int64, unixSeconds: Int64) {
        if case .finished = phase {
            // Leaving: the final report is not tried again.
            pendingFinal = nil
            return
        }
        if unreachable == nil {
            unreachable = (now, unixSeconds, reason)
            framesWhileUnreachable = 0
        } else {
            unreachable?.reason = reason
        }
        retryAt = now + Self.retryNanoseconds
    }
}
