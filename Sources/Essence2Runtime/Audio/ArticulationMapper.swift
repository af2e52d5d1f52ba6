/// Hand-tuned mapping from a window of hop cues to one frame's `Articulation`, with temporal smoothing.
///
/// The window holds `pastHops` hops before the frame, the frame's own `frameHops` hops, and `aheadHops` hops
/// of look-ahead. Version 1 of the lip-sync (`LipSyncModel.v1`), kept for comparison with the learned model.
struct ArticulationMapper: Sendable {
    /// Hops of context before the frame (160 ms).
    static let pastHops = 16
    /// Hops in one 40 ms frame.
    static let frameHops = ArticulationHops.frameHops
    /// Hops of look-ahead after the frame (70 ms; with the 25 ms window this reaches 77.5 ms past the frame).
    static let aheadHops = ArticulationHops.aheadHops
    /// Total hops the mapper looks at for one frame.
    static let windowHops = pastHops + frameHops + aheadHops

    private var previous = Articulation.rest

    /// Articulation of the frame whose hops are `window[pastHops ..< pastHops + frameHops]`.
    mutating func frame(_ window: UnsafeBufferPointer<HopCues>) -> Articulation {
        precondition(window.count == Self.windowHops, "cue window size")
        let first = Self.pastHops
        // Closure evidence of the frame's own hops: the mean of the two strongest, so one stray hop does not close
        // the lips but a 20 ms closure does (crisp, no smoothing over frames on the way in).
        var best: Float = 0
        var second: Float = 0
        for i in first..<(first + Self.frameHops) {
            let c = closure(window, at: i)
            if c > best {
                second = best
                best = c
            } else if c > second {
                second = c
            }
        }
        let pressTarget = (best + second) * 0.5

        // Jaw and lip shape from the frame's hops shifted 10–20 ms ahead, so the mouth leads the sound.
        var jawSum: Float = 0
        var spreadSum: Float = 0
        var weightSum: Float = 0
        let lo = first + 1
        let hi = first + Self.frameHops + 2
        for i in lo..<hi {
            let c = window[i]
            let jaw = c.activity * c.loudness * (0.3 + 0.7 * c.openness) * (1 - 0.5 * c.frication)
            jawSum += jaw
            let w = c.activity * c.loudness
            spreadSum += w * c.spread
            weightSum += w
        }
        let count = Float(hi - lo)
        let jawTarget = jawSum / count * (1 - pressTarget)
        let spreadTarget = weightSum > 0 ? spreadSum / weightSum * min(weightSum / (0.5 * count), 1) : 0

        var next = previous
        // Asymmetric smoothing: close fast (crisp closures), open a little slower; press snaps on, lets go quickly.
        let jawRate: Float = jawTarget < previous.jawOpen ? 0.85 : 0.7
        next.jawOpen = pressTarget > 0.5 ? jawTarget : previous.jawOpen + (jawTarget - previous.jawOpen) * jawRate
        next.lipSpread = previous.lipSpread + (spreadTarget - previous.lipSpread) * 0.6
        next.lipPress = pressTarget >= previous.lipPress
            ? pressTarget : previous.lipPress + (pressTarget - previous.lipPress) * 0.8
        previous = next.clamped()
        return previous
    }

    /// A frame with no audio: everything eases towards rest.
    mutating func hold() -> Articulation {
        previous = previous.heldTowardRest()
        return previous
    }

    /// How surely hop `i` is a lip closure: silence right after speech that resumes within the look-ahead without
    /// a hissing release (the closure of p or b rather than t or k), or a low-pass murmur (m, the voice bar of b)
    /// well below the speech just before or just after it.
    private func closure(_ window: UnsafeBufferPointer<HopCues>, at i: Int) -> Float {
        let c = window[i]
        var before: Float = -100
        var beforeActivity: Float = 0
        for j in (i - Self.pastHops + 1)..<i {
            let p = window[j]
            beforeActivity = max(beforeActivity, p.activity)
            if p.activity > 0.5 { before = max(before, p.level) }
        }
        var after: Float = -100
        var afterActivity: Float = 0
        // Frication of the release: the smaller of the first two hops of resumed speech, so a lone click of a
        // burst does not count but the longer hiss of t and k does.
        var release: Float = 1
        var releaseHops = 0
        for j in (i + 1)..<window.count {
            let p = window[j]
            afterActivity = max(afterActivity, p.activity)
            if p.activity > 0.5 {
                after = max(after, p.level)
                if releaseHops < 2 {
                    release = min(release, p.frication)
                    releaseHops += 1
                }
            }
        }
        if releaseHops == 0 { release = 0 }
        let speechBefore = LipSyncMath.smoothstep(beforeActivity, 0.3, 0.8)
        // Without speech resuming in the look-ahead the silence may be a pause: the lips close but do not press.
        let confirmed = 0.25 + 0.75 * LipSyncMath.smoothstep(afterActivity, 0.3, 0.8)
        // A hissing release (the burst and aspiration of t and k) speaks against the lips; p and b release weakly.
        let labialRelease = 1 - 0.7 * release
        let silence = (1 - c.activity) * speechBefore * confirmed * labialRelease
        let dip = max(
            speechBefore * LipSyncMath.smoothstep(before - c.level, 5, 10),
            LipSyncMath.smoothstep(after - c.level, 6, 12))
        return max(silence, c.murmur * dip)
    }
}
