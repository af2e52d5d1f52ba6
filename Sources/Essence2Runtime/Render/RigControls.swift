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
        gap = gapMax * a.jawOpen * (1 - a.lipPress)
        jaw = gapMax * jawPerGap * a.jawOpen * (1 - 0.7 * a.lipPress)
        spread = max(a.lipSpread, 0)
        round = max(-a.lipSpread, 0)
        press = a.lipPress
        tongue = a.tongueTip
        self.blink = sanitized(blink, 0, 1)
    }

    /// Controls for `articulation` and the eyelids, brows and gaze of `pose`.
    init(articulation: Articulation, pose: FacePose, gapMax: Float, jawPerGap: Float) {
        self.init(articulation: articulation, blink: pose.blink, gapMax: gapMax, jawPerGap: jawPerGap)
        brow = sanitized(pose.browRaise, 0, 1)
        gaze = SIMD2(sanitized(pose.gaze.x, -1, 1), sanitized(pose.gaze.y, -1, 1))
    }
}
