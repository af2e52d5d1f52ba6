/// Follows the noise floor and the speech peak of a stream and turns each hop's features into level-independent cues.
///
/// It is advanced once per hop of real audio, in order, so its state depends only on the audio itself.
/// Noise floor: minimum statistics over the last second (assuming -60 dBFS before the stream), capped at
/// `floorCeiling`. Speech peak: instant attack, 3 dB/s decay.
struct LevelTracker: Sendable {
    /// Hops of level history for the minimum-statistics noise floor (1 s).
    static let floorHops = 100
    /// The floor is never taken above this: anything louder is speech, not noise.
    static let floorCeiling: Float = -45
    /// Nothing quieter than this is speech, whatever the floor.
    static let absoluteGate: Float = -80
    /// What the floor history assumes before the stream began: noise no louder than this.
    static let initialFloor: Float = -60
    /// Running peak decay, dB per hop (3 dB/s).
    static let peakDecay: Float = 0.03

    private var history = [Float](repeating: LevelTracker.initialFloor, count: LevelTracker.floorHops)
    private var seen = 0
    private var peak: Float = -100

    /// Takes in the next hop's features and returns its cues.
    mutating func advance(_ f: SpeechFeatures) -> HopCues {
        history[seen % Self.floorHops] = f.level
        seen += 1
        var minimum = f.level
        history.withUnsafeBufferPointer { levels in
            for level in levels { minimum = min(minimum, level) }
        }
        let floor = min(minimum, Self.floorCeiling)
        let gate = max(floor + 8, Self.absoluteGate)
        peak = max(f.level, peak - Self.peakDecay, gate + 24)
        return cues(f, gate: gate)
    }

    private func cues(_ f: SpeechFeatures, gate: Float) -> HopCues {
        let activity = LipSyncMath.smoothstep(f.level, gate, gate + 10)
        let loudness = LipSyncMath.smoothstep(f.level, peak - 28, peak - 6)
        let openness = LipSyncMath.smoothstep(f.f1Proxy, 330, 720)
        let front = LipSyncMath.smoothstep(f.f2Proxy, 1500, 2300) * 2 - 1
        let spread = (1 - openness) * front
        // Frication: energy above 2 kHz rivals the formant region below 1 kHz, or the waveform is noise-like.
        let highDominance = max(f.air, f.high) - max(f.low, f.voiceBar)
        let frication = activity * max(
            LipSyncMath.smoothstep(highDominance, -4, 6), LipSyncMath.smoothstep(f.zeroCrossingRate, 0.25, 0.4))
        // Murmur: the voicing band (60–310 Hz) stands far above everything over 2 kHz (nasals, voice bars).
        let lowDominance = f.voiceBar - max(f.high, f.air)
        let murmur = activity * LipSyncMath.smoothstep(lowDominance, 14, 24) * (1 - frication)
        return HopCues(
            level: f.level, activity: activity, loudness: loudness, openness: openness,
            spread: spread, frication: frication, murmur: murmur)
    }
}
