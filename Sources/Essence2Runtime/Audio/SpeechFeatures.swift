/// What the analysis measures in one 25 ms window of audio, every 10 ms: level and spectral shape.
///
/// Levels are in dB relative to digital full scale (a full-scale sine is about -3 dB); -100 dB is the floor.
struct SpeechFeatures: Sendable, Equatable {
    /// Mean power of the Hann-windowed samples, in dB.
    var level: Float
    /// Power in 60–310 Hz (voicing fundamental, voice bar of closures, nasal murmur), in dB.
    var voiceBar: Float
    /// Power in 310–1000 Hz (first formant region), in dB.
    var low: Float
    /// Power in 1000–2000 Hz (second formant of back and open vowels), in dB.
    var mid: Float
    /// Power in 2000–3500 Hz (second and third formants of front vowels), in dB.
    var high: Float
    /// Power in 3500–8000 Hz (frication and aspiration), in dB.
    var air: Float
    /// Power centroid of 190–1000 Hz, in Hz: a proxy for the first formant (jaw opening).
    var f1Proxy: Float
    /// Power centroid of 1000–3000 Hz, in Hz: a proxy for the second formant (front/back, spread/round).
    var f2Proxy: Float
    /// Share of adjacent sample pairs whose signs differ, 0...1: high for noise-like frication.
    var zeroCrossingRate: Float

    /// The features of digital silence.
    static let silence = SpeechFeatures(
        level: -100, voiceBar: -100, low: -100, mid: -100, high: -100, air: -100,
        f1Proxy: 0, f2Proxy: 0, zeroCrossingRate: 0)
}
