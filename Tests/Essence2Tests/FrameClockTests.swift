import Testing
@testable import Essence2Runtime
@testable import Essence2Vision
@testable import Essence2Authoring

/// The 25-a-second clock, on virtual time.
@Suite struct FrameClockTests {
    static let ms: Int64 = 1_000_000

    /// Asks the clock at each time; returns the times at which a frame was handed out.
    func grants(_ clock: inout FrameClock, at times: [Int64]) -> [Int64] {
        var out: [Int64] = []
        for t in times where clock.isDue(at: t) {
            clock.take(at: t)
            out.append(t)
        }
        return out
    }

    @Test func tightLoopGetsAtMost251FramesIn10Seconds() {
        var clock = FrameClock()
        let times = stride(from: Int64(0), to: 10_000 * Self.ms, by: 100_000).map { $0 }
        let got = grants(&clock, at: times)
        #expect(got.count <= 251)
        #expect(got.count >= 250)
    }

    @Test func callerSleeping40msWithJitterGetsEveryFrame() {
        var rng = SplitMix(seed: 7)
        // Wakes on a 40 ms grid, each wake-up up to 3 ms early or late.
        var clock = FrameClock()
        let times = (0..<250).map { Int64($0) * 40 * Self.ms + Int64(rng.uniform(-3, 3) * Double(Self.ms)) + 5 * Self.ms }
        #expect(grants(&clock, at: times).count == 250)
        // Sleeps 40 ms after each call (a sleep never returns early) plus 0-3 ms of scheduling delay: drifts late.
        var drifting = FrameClock()
        var t: Int64 = 0
        var times2: [Int64] = []
        for _ in 0..<250 {
            times2.append(t)
            t += 40 * Self.ms + Int64(rng.uniform(0, 3) * Double(Self.ms))
        }
        #expect(grants(&drifting, at: times2).count == 250)
    }

    @Test func displayLoopAt60HzGets25FramesASecond() {
        var clock = FrameClock()
        let times = (0..<600).map { Int64((Double($0) * 1000.0 / 60.0) * Double(Self.ms)) }
        let got = grants(&clock, at: times)
        #expect(abs(got.count - 250) <= 2)
        // 3:2 cadence: consecutive frames 2 or 3 display refreshes apart, never 1.
        let gaps = zip(got.dropFirst(), got).map { Double($0 - $1) / Double(Self.ms) }
        #expect(gaps.allSatisfy { $0 > 30 && $0 < 51 })
    }

    @Test func lagOf60msIsCaughtUpWithTwoFramesBackToBack() {
        var clock = FrameClock()
        var times = (0..<10).map { Int64($0) * 40 * Self.ms }
        let stallEnd = times.last! + 40 * Self.ms + 60 * Self.ms
        times += [stallEnd, stallEnd, stallEnd, stallEnd + 1 * Self.ms]
        let got = grants(&clock, at: times)
        #expect(got.count == 12)
        #expect(got.filter { $0 == stallEnd }.count == 2)
        #expect(clock.reanchoredSlots == 0)
    }

    @Test func stallOfOneSecondReanchorsWithOneFrameAndNoBurst() {
        var clock = FrameClock()
        var times = (0..<10).map { Int64($0) * 40 * Self.ms }
        let stallEnd = times.last! + 1000 * Self.ms
        times += Array(repeating: stallEnd, count: 5)
        let got = grants(&clock, at: times)
        #expect(got.filter { $0 == stallEnd }.count == 1)
        #expect(clock.reanchoredSlots >= 23)
        // Afterwards the clock runs on from the stall: the next frame 40 ms later.
        #expect(!clock.isDue(at: stallEnd + 20 * Self.ms))
        #expect(clock.isDue(at: stallEnd + 40 * Self.ms))
    }

    @Test func earlyCallerWithinToleranceGetsFrameButNotTwoPerPeriod() {
        var clock = FrameClock()
        clock.take(at: 0)
        #expect(!clock.isDue(at: 29 * Self.ms))
        #expect(clock.isDue(at: 31 * Self.ms))
        clock.take(at: 31 * Self.ms)
        #expect(!clock.isDue(at: 60 * Self.ms))
    }
}

/// Small deterministic generator for test timings.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func uniform(_ lo: Double, _ hi: Double) -> Double {
        lo + (hi - lo) * Double(next() >> 11) / Double(1 << 53)
    }
}
