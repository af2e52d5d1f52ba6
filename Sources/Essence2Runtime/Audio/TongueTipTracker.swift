/// The tongue tip, derived from the mouth's motion rather than learned: it rises in the dips of the jaw
/// between vowels that the lips do not close, which is where the consonants made with the tongue's tip and
/// blade fall (l, n, t, d, th, s, z; k and g raise the tongue too), and drops as the jaw opens for the next
/// vowel.
///
/// Per frame: a dip is the jaw at least 0.08 below its highest value of the last 200 ms, still at or below
/// the previous frame, between 0.06 and 0.4 open; it counts fully from 0.23 below. Pressed lips (p, b, m, f,
/// v) and rounded ones (w, oo, sh) keep the tongue down. The tip follows the cue quickly up (70%) and a little
/// slower down (50% a frame).
struct TongueTipTracker: Sendable {
    private var recent: [Float] = [0, 0, 0, 0, 0]
    private var next = 0
    private var previousJaw: Float = 0
    private var tip: Float = 0

    /// The tongue tip for a frame whose other fields are `a`; returns `a` with `tongueTip` set.
    mutating func apply(to a: Articulation) -> Articulation {
        let jaw = a.jawOpen.isFinite ? a.jawOpen : 0
        let peak = recent.max() ?? 0
        recent[next] = jaw
        next = (next + 1) % recent.count
        let depth = clamp01((peak - jaw - 0.08) / 0.15)
        let inRange = smoothstep(0.04, 0.08, jaw) * (1 - smoothstep(0.32, 0.4, jaw))
        let falling: Float = jaw <= previousJaw + 0.01 ? 1 : 0
        let free = (1 - smoothstep(0.05, 0.2, a.lipPress)) * (1 - smoothstep(0.3, 0.6, -a.lipSpread))
        let target = depth * inRange * falling * free
        previousJaw = jaw
        tip += (target - tip) * (target > tip ? 0.7 : 0.5)
        if tip < 1e-3 { tip = 0 }
        var out = a
        out.tongueTip = tip
        return out.clamped()
    }

    /// A held frame (no audio): the tip goes down.
    mutating func hold(_ a: Articulation) -> Articulation {
        tip *= 0.5
        if tip < 1e-3 { tip = 0 }
        var out = a
        out.tongueTip = tip
        return out.clamped()
    }
}
