extension Articulation {
    /// Gain on the learned model's lip tuck (`init(learned:)`).
    static let tuckGain: Float = 2.5

    /// The articulation of the learned model's outputs `outputs` (jaw, spread, press, tuck; `ArticulationNetwork`):
    /// the press and the tuck combined into the renderer's one press. The tuck (the lower lip under the upper teeth,
    /// f and v) pulls the press to `labiodentalPress`, the renderer's full tuck, unless the lips are pressed together
    /// (a press from 0.4, fully from 0.55: the closure wins). A tuck of 0 keeps the press as it is.
    ///
    /// With one output for both gestures, the model hedged between a closure and a tuck on a short fricative (a
    /// median press of 0.19 on the f and v frames of recorded speech, a quarter over 0.52), so f and v were drawn
    /// with the lips barely tucked (docs/experiments/2026-12-05-fv-in-speech.md). tools/lipsync/targets.py's
    /// `combined_press` is this function's twin for training, without the gain.
    ///
    /// The tuck is calibrated as the rounding is (`roundingCalibrated()`): times `tuckGain`, at most 1. On the 22
    /// aligned recordings of tools/lipsync/real the model tucks the f and v frames a median of 0.37 (quartiles 0 and
    /// 0.99: a short fricative is often tucked for part of its frame) and the others hardly at all (s, z, sh, th: 90 %
    /// of their frames at most 0.02; p, b, m and pauses 0), so the gain draws more of the f and v frames fully
    /// tucked without tucking other sounds.
    init(learned outputs: SIMD4<Float>) {
        let press = outputs[2]
        let tuck = min(outputs[3] * Self.tuckGain, 1) * (1 - smoothstep(0.4, 0.55, press))
        self = Articulation(
            jawOpen: outputs[0], lipSpread: outputs[1], lipPress: press + (Self.labiodentalPress - press) * tuck
        ).clamped()
    }
}
