/// The per-frame amounts that drive the face rig, in pixels or 0...1, derived from an articulation and a pose.
struct RigControls: Equatable {
    /// Target lip opening at the mouth centre, pixels.
    var gap: Float
    /// Jaw drop at the chin, pixels.
    var jaw: Float
    /// Lip spread (0...1) and rounding (0...1).
    var spread: Float
    var round: Float
    /// Lips pressed together, 0...1.
    var press: Float
    /// Lower lip tucked under the upper teeth (f, v), 0...1: what a partial press (the lip-sync model's
    /// labiodentals, press 0.4 with the jaw nearly closed) means; 0 at no press and at a full press (p, b, m).
    var tuck: Float
    /// Tongue tip raised, 0...1.
    var tongue: Float
    /// Eyelid closure, 0...1.
    var blink: Float
    /// Brows raised, 0...1.
    var brow: Float = 0
    /// Gaze, -1...1 on each axis.
    var gaze: SIMD2<Float> = .zero

    /// Controls for `articulation` (clamped) and `blink`, for a face whose widest opening is `gapMax` pixels.
    init(articulation: Articulation, blink: Float, gapMax: Float, jawPerGap: Float) {
        let a = articulation.clamped()
        tuck = RigControls.tuck(press: a.lipPress)
        // The tucked lower lip rests on the upper teeth whatever the jaw does: the lips' own opening goes.
        gap = gapMax * a.jawOpen * (1 - a.lipPress) * (1 - tuck)
        jaw = gapMax * jawPerGap * a.jawOpen * (1 - 0.7 * a.lipPress)
        spread = max(a.lipSpread, 0)
        round = max(-a.lipSpread, 0)
        press = a.lipPress
        tongue = a.tongueTip
        self.blink = sanitized(blink, 0, 1)
    }

    /// The lower lip's tuck for a lip press `press` (0...1): full from 0.25 to 0.4 (f and v are 0.4), none below
    /// 0.1 or from 0.55 up (m, p, b press the lips together instead: the model's presses on recorded p, b and m
    /// are often partial, a median of 0.64, and a tuck there shows the upper teeth where the lips should meet).
    static func tuck(press: Float) -> Float {
        smoothstep(0.1, 0.25, press) * (1 - smoothstep(0.4, 0.55, press))
    }

    /// Controls for `articulation` and the eyelids, brows and gaze of `pose`.
    init(articulation: Articulation, pose: FacePose, gapMax: Float, jawPerGap: Float) {
        self.init(articulation: articulation, blink: pose.blink, gapMax: gapMax, jawPerGap: jawPerGap)
        brow = sanitized(pose.browRaise, 0, 1)
        gaze = SIMD2(sanitized(pose.gaze.x, -1, 1), sanitized(pose.gaze.y, -1, 1))
    }
}
