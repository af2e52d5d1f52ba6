import Testing
@testable import Essence2Runtime
@testable import Essence2Vision
@testable import Essence2Authoring

@Suite struct ReplyTrackerTests {
    func events(_ kinds: [FrameKind], interruptAfter: Int? = nil) -> ReplyTracker {
        var tracker = ReplyTracker()
        for (i, kind) in kinds.enumerated() {
            _ = tracker.observe(kind)
            if i == interruptAfter { _ = tracker.interrupt() }
        }
        return tracker
    }

    @Test func idleSpeechRampIdleIsOneStartAndOneEndOnFirstIdle() {
        var tracker = ReplyTracker()
        var e = tracker.observe(.idle)
        #expect(e == .none)
        e = tracker.observe(.speech)
        #expect(e == .started)
        e = tracker.observe(.speech)
        #expect(e == .none)
        e = tracker.observe(.ramp)
        #expect(e == .none)
        e = tracker.observe(.ramp)
        #expect(e == .none)
        e = tracker.observe(.idle)
        #expect(e == .ended)
        e = tracker.observe(.idle)
        #expect(e == .none)
        #expect(tracker.started == 1 && tracker.ended == 1)
    }

    @Test func rampStraightIntoSpeechIsTwoReplies() {
        let tracker = events([.idle, .speech, .ramp, .speech, .ramp, .idle])
        #expect(tracker.started == 2 && tracker.ended == 2)
    }

    @Test func interruptEndsReplyOnce() {
        var tracker = ReplyTracker()
        _ = tracker.observe(.speech)
        var ended = tracker.interrupt()
        var e: ReplyTracker.Event
        #expect(ended)
        ended = tracker.interrupt()
        #expect(!ended)
        e = tracker.observe(.ramp)
        #expect(e == .none)
        e = tracker.observe(.idle)
        #expect(e == .none)
        #expect(tracker.started == 1 && tracker.ended == 1)
    }

    @Test func interruptWhileIdleIsNothing() {
        var tracker = ReplyTracker()
        _ = tracker.observe(.idle)
        let ended = tracker.interrupt()
        #expect(!ended)
        #expect(tracker.started == 0 && tracker.ended == 0)
    }

    @Test func speechAfterInterruptRampStartsNewReply() {
        let tracker = events([.speech, .speech, .ramp, .speech, .idle], interruptAfter: 1)
        #expect(tracker.started == 2 && tracker.ended == 2)
    }
}

@Suite struct ReplyTimelineTests {
    @Test func frameKIsDueKPeriodsAfterAnchor() {
        let line = ReplyTimeline(anchorTime: 1_000, anchorIndex: 0)
        #expect(line.due(0) == 1_000)
        #expect(line.due(5) == 1_000 + 5 * FrameClock.period)
    }

    @Test func frameAFullPeriodLateIsLateAndOneSlightlyLateIsNot() {
        let line = ReplyTimeline(anchorTime: 0, anchorIndex: 0)
        #expect(!line.isLate(3, at: line.due(3) + FrameClock.period - 1))
        #expect(line.isLate(3, at: line.due(3) + FrameClock.period))
        #expect(line.isEarly(3, at: line.due(3) - FrameClock.earlyTolerance - 1))
        #expect(!line.isEarly(3, at: line.due(3) - FrameClock.earlyTolerance))
    }

    @Test func playoutPositionMarksFramesWhoseAudioHasPlayed() {
        var playout = PlayoutPosition()
        playout.report(1280)
        #expect(playout.hasPlayed(audioEnd: 1280))
        #expect(!playout.hasPlayed(audioEnd: 1920))
        playout.report(640)  // never goes back
        #expect(playout.samplesPlayed == 1280)
        playout.newReply()
        #expect(!playout.hasPlayed(audioEnd: 640))
    }
}
