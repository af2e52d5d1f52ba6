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
    /// Eyelid closure, 0...1.
    var blink: Float

    /// Controls for `articulation` (clamped) and `blink`, for a face whose widest opening is `gapMax` pixels.
    init(articulation: Articulation, blink: Float, gapMax: Float, jawPerGap: Float) {
        let a = articulation.clamped()
        gap = gapMax * a.jawOpen * (1 - a.lipPress)
        jaw = gapMax * jawPerGap * a.jawOpen * (1 - 0.7 * a.lipPress)
        spread = max(a.lipSpread, 0)
        round = max(-a.lipSpread, 0)
        press = a.lipPress
        self.blink = sanitized(blink, 0, 1)
    }
}
