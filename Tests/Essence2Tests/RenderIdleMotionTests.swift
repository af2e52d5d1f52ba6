import Testing
@testable import Essence2Runtime
@testable import Essence2Vision
@testable import Essence2Authoring

/// Idle life: a pure function of (seed, frame) with blinks every 2-6 s, breathing and small smooth head motion.
struct RenderIdleMotionTests {
    static let fps = IdleMotion.framesPerSecond

    @Test func sameSeedAndFrameGiveTheSamePoseInAnyOrder() {
        let a = IdleMotion(seed: 42), b = IdleMotion(seed: 42)
        let frames = [0, 1, 2, 99, 100, 101, 12_345, 1_000_000, 77]
        let forward = frames.map { a.pose(at: $0) }
        let backward = frames.reversed().map { b.pose(at: $0) }
        #expect(forward == backward.reversed())
        #expect(IdleMotion(seed: 43).pose(at: 100) != a.pose(at: 100))
    }

    /// First frames of each blink in `frames` frames.
    static func blinkStarts(_ m: IdleMotion, frames: Int) -> [Int] {
        var starts: [Int] = []
        var previous: Float = 0
        for f in 0..<frames {
            let b = m.pose(at: f).blink
            if b > 0, previous == 0 { starts.append(f) }
            previous = b
        }
        return starts
    }

    @Test func blinksComeEveryTwoToSixSecondsAndCloseTheLidsFully() {
        for seed: UInt64 in [0, 1, 0x5EED, 987_654_321] {
            let m = IdleMotion(seed: seed)
            let frames = 10 * 60 * Self.fps
            let starts = Self.blinkStarts(m, frames: frames)
            #expect(starts.count > 90 && starts.count < 300)
            #expect(starts[0] <= 3 * Self.fps)
            for (s, next) in zip(starts, starts.dropFirst()) {
                #expect(next - s >= 2 * Self.fps && next - s <= 6 * Self.fps, "blinks at \(s) and \(next)")
            }
            let intervals = zip(starts, starts.dropFirst()).map { $1 - $0 }
            #expect(Set(intervals).count > 10, "randomised intervals")
            for s in starts {
                let closure = (s..<(s + 12)).map { m.pose(at: $0).blink }
                #expect(closure.max() == 1, "blink at \(s) closes fully")
                #expect(closure.last == 0, "blink at \(s) opens again")
            }
        }
    }

    @Test func headMotionAndBreathingStaySmallAndSmooth() {
        let m = IdleMotion(seed: 7)
        var previous = m.pose(at: 0)
        var crossings = 0
        for f in 1..<(60 * Self.fps) {
            let p = m.pose(at: f)
            #expect(abs(p.headRoll) < 0.05)
            #expect(abs(p.headShift.x) < 3 && abs(p.headShift.y) < 3)
            #expect(abs(p.headYaw) <= 1 && abs(p.headPitch) <= 1)
            #expect(p.breath >= -1 && p.breath <= 1)
            #expect(abs(p.headRoll - previous.headRoll) < 0.002)
            #expect(abs(p.headShift.x - previous.headShift.x) < 0.1 && abs(p.headShift.y - previous.headShift.y) < 0.1)
            #expect(abs(p.headYaw - previous.headYaw) < 0.03 && abs(p.headPitch - previous.headPitch) < 0.03)
            #expect(abs(p.breath - previous.breath) < 0.1)
            if (p.breath >= 0) != (previous.breath >= 0) { crossings += 1 }
            previous = p
        }
        // A breath every 3.5 ... 6 s: two zero crossings per breath over a minute.
        #expect(crossings >= 20 && crossings <= 36)
    }

    @Test func theHeadKeepsMoving() {
        let m = IdleMotion(seed: 11)
        let xs = (0..<(20 * Self.fps)).map { m.pose(at: $0).headShift.x }
        #expect(xs.max()! - xs.min()! > 0.5)
        let yaws = (0..<(20 * Self.fps)).map { m.pose(at: $0).headYaw }
        #expect(yaws.max()! - yaws.min()! > 0.1)
    }

    @Test func negativeAndHugeFramesAreSafe() {
        let m = IdleMotion(seed: 1)
        #expect(m.pose(at: -5) == m.pose(at: 0))
        let far = m.pose(at: Int.max)
        #expect(far.headRoll.isFinite && far.blink >= 0 && far.blink <= 1)
    }

    @Test func theGazeIsHeldBetweenQuickSmallSaccades() {
        for seed: UInt64 in [0, 7, 0x5EED] {
            let m = IdleMotion(seed: seed)
            var ahead = 0, slots = 0
            for k in 1..<150 {
                let start = m.gazeStart(slot: k), next = m.gazeStart(slot: k + 1)
                // Each gaze is held 0.6 ... 3 s.
                #expect(next - start >= 15 && next - start <= 75)
                let before = m.pose(at: start - 1).gaze, target = m.pose(at: start + 2).gaze
                #expect(abs(target.x) <= 0.8 && abs(target.y) <= 0.35)
                // A saccade: two frames on the way, then the target until the next one.
                for f in (start + 2)..<next { #expect(m.pose(at: f).gaze == target) }
                for f in [start, start + 1] {
                    let g = m.pose(at: f).gaze
                    #expect(length(g - before) <= length(target - before) + 1e-6)
                }
                if target == .zero { ahead += 1 }
                slots += 1
            }
            #expect(ahead > slots / 4 && ahead < slots * 3 / 4, "straight ahead in \(ahead) of \(slots) gazes")
        }
    }
}
