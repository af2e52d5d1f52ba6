import Testing
@testable import Essence2Runtime
@testable import Essence2Service

/// The session contract (docs/sessions.md) as a pure state machine, on virtual time: every case of the
/// contract with the service's replies given by hand.
@Suite struct SessionMeterTests {
    static let second: Int64 = 1_000_000_000
    static let frame: Int64 = 40_000_000

    /// A meter on a virtual clock, with helpers to take frames and answer requests.
    struct Harness {
        var meter: SessionMeter
        var now: Int64 = 1_000 * SessionMeterTests.second

        init(hasSecret: Bool = true) {
            meter = SessionMeter(service: "http://127.0.0.1:8787", hasSecret: hasSecret, now: 1_000 * SessionMeterTests.second)
        }

        /// Asks for `count` frames of `kind`, `step` ns apart; returns how many were handed out (stops at the
        /// first refusal) and the refusal, if any.
        mutating func take(_ count: Int, _ kind: FrameKind = .idle, step: Int64 = SessionMeterTests.frame)
            -> (taken: Int, refusal: String?) {
            for i in 0..<count {
                if case .refused(let reason) = meter.permission(now: now) { return (i, reason) }
                meter.delivered(kind, now: now)
                now += step
            }
            return (count, nil)
        }

        mutating func advance(_ nanoseconds: Int64) { now += nanoseconds }

        mutating func request() -> MeterRequest? { meter.nextRequest(now: now) }

        mutating func answer(_ reply: MeterReply, unixSeconds: Int64 = 1_800_000_000) {
            meter.receive(reply, now: now, unixSeconds: unixSeconds)
        }

        /// Opens the session ("s1", reports every 30 s).
        mutating func accept(_ id: String = "s1", interval: Int = 30) {
            #expect(request() == .open)
            answer(.opened(sessionID: id, reportIntervalSeconds: interval))
        }
    }

    // MARK: Start

    @Test func acceptedSessionStartsAndReportsEveryIntervalInWholeSeconds() {
        var h = Harness()
        #expect(h.meter.start == .pending)
        if case .refused = h.meter.permission(now: h.now) {} else { Issue.record("frames before the check must be refused") }
        h.accept()
        #expect(h.meter.start == .accepted)
        #expect(h.request() == nil, "nothing to report yet")
        #expect(h.take(700, .speech).taken == 700)  // 28 s of video on the wall clock too
        #expect(h.request() == nil)
        #expect(h.take(62).taken == 62)  // 812 frames: past 30 s of rendered video and of wall time
        let figures = UsageFigures(frames: 762, talkingFrames: 700)
        guard case .usage("s1", let sent, false) = h.request() else { Issue.record("expected a report"); return }
        #expect(sent.frames >= figures.frames && sent.seconds == sent.frames / 25)
        #expect(sent.talkingSeconds == 28 && sent.idleSeconds == sent.seconds - 28)
        h.answer(.reported)
        #expect(h.request() == nil, "the next report is due in 30 s")
        h.advance(30 * Self.second)
        #expect(h.request() == nil, "nothing new to report: no request")
    }

    @Test func unpacedRenderingReportsEveryIntervalOfRenderedVideo() {
        var h = Harness()
        h.accept(interval: 10)
        #expect(h.take(249, step: 0).taken == 249)
        #expect(h.request() == nil)
        #expect(h.take(1, step: 0).taken == 1)  // 250 frames = 10 s of video, no wall time
        #expect(h.meter.nextDeadline() ?? .max <= h.now, "the driver is woken")
        #expect(h.request() == .usage(sessionID: "s1", figures: UsageFigures(frames: 250, talkingFrames: 0), final: false))
    }

    @Test func noSecretIsRefusedWithoutAnyRequest() {
        var h = Harness(hasSecret: false)
        guard case .refused(let reason) = h.meter.start else { Issue.record("expected a refusal"); return }
        #expect(reason.contains("no API secret") && reason.contains("ESSENCE2_API_SECRET"))
        #expect(h.request() == nil)
        #expect(h.meter.isDone)
    }

    @Test func invalidSecretAtStartIsRefused() {
        var h = Harness()
        #expect(h.request() == .open)
        h.answer(.invalidSecret(reason: "unknown secret"))
        guard case .refused(let reason) = h.meter.start else { Issue.record("expected a refusal"); return }
        #expect(reason.contains("401 INVALID_SECRET") && reason.contains("unknown secret"))
        #expect(h.request() == nil && h.meter.isDone)
        #expect(h.take(1).taken == 0)
    }

    @Test func notEntitledNamesAgentNotEntitledAndNothingIsBilled() {
        var h = Harness()
        #expect(h.request() == .open)
        h.answer(.notEntitled(reason: "no entitlement to this avatar"))
        guard case .refused(let reason) = h.meter.start else { Issue.record("expected a refusal"); return }
        #expect(reason.contains("AGENT_NOT_ENTITLED") && reason.contains("nothing was billed"))
        #expect(h.request() == nil && h.meter.isDone)
    }

    @Test func unreachableAtStartIsRefused() {
        var h = Harness()
        #expect(h.request() == .open)
        #expect(h.request() == nil, "one request at a time")
        h.answer(.unreachable(reason: "Couldn't connect to server"))
        guard case .refused(let reason) = h.meter.start else { Issue.record("expected a refusal"); return }
        #expect(reason.contains("unreachable") && reason.contains("Couldn't connect"))
        #expect(h.request() == nil && h.meter.isDone)
    }

    // MARK: After acceptance

    @Test func networkDropAllows7500FramesThenRefusesUntilTheServiceAnswers() {
        var h = Harness()
        h.accept()
        #expect(h.take(100, .speech).taken == 100)
        h.advance(30 * Self.second)
        guard case .usage = h.request() else { Issue.record("expected a report"); return }
        h.answer(.unreachable(reason: "Connection refused"), unixSeconds: 1_800_000_000)
        // Unpaced: exactly 5 minutes of rendered video, then -3.
        let (taken, refusal) = h.take(10_000, step: 0)
        #expect(taken == 7_500)
        let reason = refusal ?? ""
        #expect(reason.contains("unreachable since 2027-01-15T08:00:00Z") && reason.contains("Connection refused"))
        // Retried every 2 s, refused meanwhile.
        #expect(h.request() == nil)
        h.advance(2 * Self.second)
        guard case .usage(_, let sent, false) = h.request() else { Issue.record("expected a retry"); return }
        #expect(sent.frames == 7_600)
        h.answer(.unreachable(reason: "Connection refused"))
        #expect(h.take(1).taken == 0)
        h.advance(2 * Self.second)
        #expect(h.request() != nil)
        h.answer(.reported)
        // Back: frames flow, and a new drop gets a new 7500.
        #expect(h.take(10).taken == 10)
        #expect(h.meter.framesWhileUnreachable == 0)
    }

    @Test func secretRejectedMidSessionIsFinal() {
        var h = Harness()
        h.accept()
        #expect(h.take(800).taken == 800)
        guard case .usage = h.request() else { Issue.record("expected a report"); return }
        h.answer(.invalidSecret(reason: "secret revoked"))
        let (taken, refusal) = h.take(1)
        #expect(taken == 0)
        #expect(refusal?.contains("final") == true && refusal?.contains("secret revoked") == true)
        h.advance(600 * Self.second)
        #expect(h.request() == nil && h.meter.isDone)
        #expect(h.take(1).taken == 0, "still refused: final for this engine")
    }

    @Test func sixtySecondsWithoutFramesClosesTheSessionAndTheNextFrameOpensANewOne() {
        var h = Harness()
        h.accept()
        #expect(h.take(250, .speech).taken == 250)  // 10 s
        h.advance(59 * Self.second)
        // The periodic report fell due meanwhile; the session is still open.
        #expect(h.request() == .usage(sessionID: "s1", figures: UsageFigures(frames: 250, talkingFrames: 250), final: false))
        h.answer(.reported)
        #expect(h.request() == nil)
        h.advance(1 * Self.second)
        #expect(h.request() == .usage(sessionID: "s1", figures: UsageFigures(frames: 250, talkingFrames: 250), final: true))
        h.answer(.reported)
        #expect(h.request() == nil, "closed: nothing to send until a frame is asked for")
        h.advance(3_600 * Self.second)
        #expect(h.request() == nil)
        // The next frame is served while the new session's check is pending, and counts in the new session.
        #expect(h.take(1).taken == 1)
        #expect(h.request() == .open)
        #expect(h.take(24).taken == 24)
        h.answer(.opened(sessionID: "s2", reportIntervalSeconds: 30))
        #expect(h.take(726).taken == 726)
        #expect(h.request() == .usage(sessionID: "s2", figures: UsageFigures(frames: 751, talkingFrames: 0), final: false))
    }

    @Test func reopenRejectedByTheServiceIsFinal() {
        var h = Harness()
        h.accept()
        _ = h.take(10)
        h.advance(61 * Self.second)
        guard case .usage(_, _, true) = h.request() else { Issue.record("expected the final report"); return }
        h.answer(.reported)
        #expect(h.take(1).taken == 1)
        #expect(h.request() == .open)
        h.answer(.notEntitled(reason: "entitlement removed"))
        let (taken, refusal) = h.take(1)
        #expect(taken == 0 && refusal?.contains("AGENT_NOT_ENTITLED") == true)
    }

    @Test func sessionClosedByTheServiceReopensWithTheUnacknowledgedFrames() {
        var h = Harness()
        h.accept()
        _ = h.take(750)
        guard case .usage(_, let first, false) = h.request() else { Issue.record("expected a report"); return }
        h.answer(.reported)
        _ = h.take(760)
        guard case .usage = h.request() else { Issue.record("expected a report"); return }
        h.answer(.sessionGone(reason: "409 SESSION_CLOSED"))
        #expect(h.request() == .open)
        h.answer(.opened(sessionID: "s2", reportIntervalSeconds: 30))
        #expect(h.meter.figures.frames == 1_510 - first.frames)
    }

    @Test func finishSendsTheFinalReportAndIsDone() {
        var h = Harness()
        h.accept()
        _ = h.take(130, .ramp)
        h.meter.finish()
        #expect(h.request() == .usage(sessionID: "s1", figures: UsageFigures(frames: 130, talkingFrames: 130), final: true))
        #expect(!h.meter.isDone)
        h.answer(.reported)
        #expect(h.meter.isDone)
        _ = h.take(5)  // a stopped engine hands out nothing; were it asked, nothing more is counted or sent
        #expect(h.request() == nil && h.meter.figures.frames == 130)
    }

    @Test func finishGivesUpTheFinalReportWhenTheServiceIsDown() {
        var h = Harness()
        h.accept()
        _ = h.take(10)
        h.meter.finish()
        #expect(h.request() != nil)
        h.answer(.unreachable(reason: "timeout"))
        #expect(h.meter.isDone)
    }

    @Test func sessionOpenedAfterCreateGaveUpIsClosedAtOnce() {
        var h = Harness()
        #expect(h.request() == .open)
        h.meter.finish(startRefusal: "did not answer within 5000 ms")
        #expect(h.meter.start == .refused(reason: "did not answer within 5000 ms"))
        h.answer(.opened(sessionID: "late", reportIntervalSeconds: 30))
        #expect(h.request() == .usage(sessionID: "late", figures: UsageFigures(), final: true))
        h.answer(.reported)
        #expect(h.meter.isDone)
    }

    // MARK: Billing

    @Test func billedSecondsAreFramesOver25RoundedDown() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var figures = UsageFigures()
            let count = Int.random(in: 0...20_000, using: &rng)
            for _ in 0..<count {
                figures.count([FrameKind.idle, .speech, .ramp].randomElement(using: &rng)!)
            }
            #expect(figures.seconds == Int64(count / 25))
            #expect(Double(count) * 0.04 - Double(figures.seconds) < 1.0)
            #expect(figures.talkingSeconds + figures.idleSeconds == figures.seconds)
            #expect(figures.idleSeconds >= 0)
        }
    }

    @Test func tenSessionsAreEachBilledTheirRenderedVideoWithinASecond() {
        for n in 1...10 {
            var h = Harness()
            h.accept("s\(n)")
            let frames = 137 * n + 11
            _ = h.take(frames, n % 2 == 0 ? .speech : .idle, step: 0)
            h.meter.finish()
            guard case .usage(_, let sent, true) = h.request() else { Issue.record("expected the final report"); return }
            #expect(sent.frames == Int64(frames))
            #expect(abs(Double(frames) * 0.04 - Double(sent.seconds)) < 1.0)
        }
    }
}
