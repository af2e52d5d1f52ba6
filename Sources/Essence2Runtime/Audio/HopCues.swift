/// Level-independent cues for one 10 ms hop: the small value the articulation mapping consumes.
///
/// `LevelTracker` derives them from `SpeechFeatures`; `ArticulationMapper` turns a window of them into
/// `Articulation` (version 1, `CueArticulationPipeline`; the learned model reads log-mel bands instead).
struct HopCues: Sendable, Equatable {
    /// Level of the hop in dBFS (kept for dips, which are level differences).
    var level: Float
    /// How surely the hop holds speech rather than silence or steady noise, 0...1.
    var activity: Float
    /// Level relative to the running speech peak, 0 (28 dB or more below) ... 1 (within 6 dB of it).
    var loudness: Float
    /// Jaw opening suggested by the first-formant proxy, 0 (close vowel) ... 1 (open vowel).
    var openness: Float
    /// Lip shape suggested by the formant proxies, -1 (rounded) ... +1 (spread); meaningful where active.
    var spread: Float
    /// How noise-like and high-pitched the hop is (fricatives, aspiration, bursts), 0...1.
    var frication: Float
    /// How strongly the spectrum is a low-pass murmur (nasal murmur, voice bar of a closure), 0...1.
    var murmur: Float

    /// Cues of silence (also used for time before the stream began).
    static let silence = HopCues(
        level: -100, activity: 0, loudness: 0, openness: 0, spread: 0, frication: 0, murmur: 0)
}
