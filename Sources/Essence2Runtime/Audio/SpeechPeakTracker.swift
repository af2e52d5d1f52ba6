import Glibc

/// The learned model's level reference: how far each hop's broadband level lies below the loudest level heard
/// recently in the stream, computed exactly as tools/lipsync/features.py `relative_level` does.
///
/// The peak follows any louder hop at once and otherwise falls by `decayPerHop` (6 dB/s). The stream starts
/// with the peak at the level of pure silence, as if set by the hop just before it, so hops before the stream
/// (pure silence) and the stream's first loud hop both read 0. The peak is kept as the level and hop that set
/// it, and its decayed value is computed afresh for every hop, so no rounding error accumulates over a stream.
///
/// A talker's own dips between syllables read -20 to -40 dB for a moment; background speech 20 dB under the
/// talker reads about -20 dB all the time, until the peak has fallen to it (about 3 s of pause).
struct SpeechPeakTracker: Sendable {
    /// Fall of the peak per 10 ms hop, dB.
    static let decayPerHop: Float = 0.06
    /// The broadband level of pure silence: 32 bands at the analyzer's floor (10·log10(32e-10) dB).
    static let silenceLevel: Float = 10 * log10f(Float(LogMelAnalyzer.bandCount) * LogMelAnalyzer.floorPower)

    private var peakLevel = SpeechPeakTracker.silenceLevel
    /// Hops since the peak was set (the hop before the stream counts as the first setter).
    private var age = 0

    /// Takes in the next hop's broadband level (dB) and returns it relative to the decayed peak (dB, at most 0).
    mutating func advance(level: Float) -> Float {
        age += 1
        let decayed = peakLevel - Self.decayPerHop * Float(age)
        if level >= decayed {
            peakLevel = level
            age = 0
            return 0
        }
        return level - decayed
    }
}
