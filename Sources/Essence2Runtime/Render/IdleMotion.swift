import Glibc

/// Idle life as a pure, deterministic function of (seed, frame index at 25 fps): blinks every 2-6 s with the
/// lids closing fully, breathing, slow small head movement, a gaze held for 0.6-3 s at a time between quick
/// small saccades (about half the time straight ahead), and a slight slow drift of the brows. The same seed and frame give the same pose,
/// bit for bit; frames can be asked for in any order.
package struct IdleMotion: Sendable {
    /// Frames per second of the frame index.
    package static let framesPerSecond = StreamFormat.framesPerSecond
    /// Blinks are spaced 2...6 s apart: one per 4 s slot, each moved by up to 1 s either way.
    static let blinkSlot = 100
    static let blinkJitter = 25
    /// Lid closure over the frames of one blink (40 ms each): fast close, two frames fully shut, slower opening.
    static let blinkProfile: [Float] = [0.45, 0.9, 1, 1, 0.7, 0.42, 0.2, 0.07]
    /// Gaze slots start 45 frames (1.8 s) apart, each start moved by up to 15 frames either way, so a gaze is
    /// held for 0.6 ... 3 s.
    static let gazeSlot = 45
    static let gazeJitter = 15
    /// How far a saccade has gone on its first frames (it is done by the third).
    static let saccadeProfile: [Float] = [0.55, 0.9]

    package let seed: UInt64
    /// Frequencies (Hz) and phases (radians) of the slow head sway components and breathing.
    private let frequencies: [Double]
    private let phases: [Double]

    package init(seed: UInt64) {
        self.seed = seed
        let base: [Double] = [0.11, 0.27, 0.07, 0.19, 0.09, 0.23, 0.05, 0.17, 0.08, 0.21, 0.235, 0.06]
        frequencies = base.enumerated().map { i, f in
            f * (0.85 + 0.3 * SeededNoise.unit(seed, 1, UInt64(i)))
        }
        phases = base.indices.map { 2 * Double.pi * SeededNoise.unit(seed, 2, UInt64($0)) }
    }

    /// The idle pose at `frame` (negative frames count as 0; beyond about 1400 years the motion stops changing).
    package func pose(at frame: Int) -> FacePose {
        let f = min(max(frame, 0), 1 << 40)
        let t = Double(f) / Double(IdleMotion.framesPerSecond)
        func wave(_ i: Int) -> Double { sin(2 * Double.pi * frequencies[i] * t + phases[i]) }
        let roll = 0.011 * wave(0) + 0.005 * wave(1)
        let shiftX = 1.2 * wave(2) + 0.5 * wave(3)
        let shiftY = 0.7 * wave(4) + 0.3 * wave(5)
        let yaw = 0.32 * wave(6) + 0.12 * wave(7)
        let pitch = 0.2 * wave(8) + 0.08 * wave(9)
        let breath = wave(10)
        let brow = 0.06 * (1 + wave(11))
        return FacePose(headRoll: Float(roll), headShift: SIMD2(Float(shiftX), Float(shiftY)), headYaw: Float(yaw),
                        headPitch: Float(pitch), blink: blink(at: f), breath: Float(breath), browRaise: Float(brow),
                        gaze: gaze(at: f))
    }

    /// First frame of gaze slot `k` (slot 0 starts at frame 0: the portrait's own gaze comes first).
    func gazeStart(slot k: Int) -> Int {
        guard k > 0 else { return 0 }
        let jitter = Int(SeededNoise.hash(seed, 4, UInt64(k)) % UInt64(2 * IdleMotion.gazeJitter + 1))
            - IdleMotion.gazeJitter
        return k * IdleMotion.gazeSlot + jitter
    }

    /// Where the eyes look during gaze slot `k`: straight ahead about half the time, else a small offset,
    /// mostly sideways.
    func gazeTarget(slot k: Int) -> SIMD2<Float> {
        guard k > 0, SeededNoise.unit(seed, 5, UInt64(k)) >= 0.45 else { return .zero }
        let side: Float = SeededNoise.unit(seed, 6, UInt64(k)) < 0.5 ? -1 : 1
        let x = side * Float(0.3 + 0.5 * SeededNoise.unit(seed, 7, UInt64(k)))
        let y = Float(-0.35 + 0.6 * SeededNoise.unit(seed, 8, UInt64(k)))
        return SIMD2(x, y)
    }

    /// Gaze at `frame`: the slot's target, reached by a saccade over its first frames.
    func gaze(at frame: Int) -> SIMD2<Float> {
        let f = min(max(frame, 0), 1 << 40)
        var k = f / IdleMotion.gazeSlot
        if gazeStart(slot: k) > f { k -= 1 }
        if gazeStart(slot: k + 1) <= f { k += 1 }
        let target = gazeTarget(slot: k)
        let offset = f - gazeStart(slot: k)
        guard k > 0, offset < IdleMotion.saccadeProfile.count else { return target }
        let previous = gazeTarget(slot: k - 1)
        return previous + (target - previous) * IdleMotion.saccadeProfile[offset]
    }

    /// First frame of the blink in slot `k` (slot 0 starts 1-3 s in).
    func blinkStart(slot k: Int) -> Int {
        let jitter = Int(SeededNoise.hash(seed, 3, UInt64(k)) % UInt64(2 * IdleMotion.blinkJitter + 1))
            - IdleMotion.blinkJitter
        return k * IdleMotion.blinkSlot + IdleMotion.blinkSlot / 2 + jitter
    }

    /// Lid closure at `frame`, 0 open ... 1 shut.
    func blink(at frame: Int) -> Float {
        guard frame >= 0 else { return 0 }
        let k = min(frame, 1 << 40) / IdleMotion.blinkSlot
        for slot in max(0, k - 1)...(k + 1) {
            let offset = min(frame, 1 << 40) - blinkStart(slot: slot)
            if offset >= 0, offset < IdleMotion.blinkProfile.count { return IdleMotion.blinkProfile[offset] }
        }
        return 0
    }
}
