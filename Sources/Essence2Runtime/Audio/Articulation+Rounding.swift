extension Articulation {
    /// Gain on the learned model's lip rounding: `roundingCalibrated()` makes a spread of -1/`roundingGain` full
    /// rounding.
    static let roundingGain: Float = 2.5

    /// This articulation of the learned model with its rounding (a negative `lipSpread`) times up to
    /// `roundingGain`, at most -1: the full gain with the lips apart, less as they press (1 + (gain - 1)(1 - press)²),
    /// none when they are pressed together, so p, b and m beside a rounded vowel stay sealed. A spread (positive)
    /// and the other channels are kept.
    ///
    /// On recorded speech the model rounds the lips much less than its training targets ask (o -0.75, u -1): a
    /// median spread of -0.18 on the frames of o and -0.40 on those of u in the 22 aligned recordings of
    /// tools/lipsync/real (unrounded vowels -0.05 on average), so o and u were drawn nearly unrounded (a face
    /// tracker measured Grace Hopper's mouth at 0.87 and 0.79 of its rest width there). With the gain they are drawn
    /// round (0.71 and 0.66; docs/lipsync.md, "Mouth shapes in speech"). The rig draws `avatar poses`' shapes from the
    /// targets themselves, without the gain.
    func roundingCalibrated() -> Articulation {
        guard lipSpread < 0 else { return self }
        var a = self
        let open = 1 - min(max(lipPress, 0), 1)
        a.lipSpread = max(-1, lipSpread * (1 + (Self.roundingGain - 1) * open * open))
        return a
    }
}
