import Glibc

/// A deterministic speech-like test signal for the bench when no speech file is at hand: a voiced source
/// (pitch 110-150 Hz with harmonics) shaped into syllables of varying loudness, with short pauses.
enum SyntheticSpeech {
    static func make(seconds: Double, sampleRate: Int = SpeechAudio.sampleRate) -> [Int16] {
        let count = Int(seconds * Double(sampleRate))
        var samples = [Int16](repeating: 0, count: count)
        var phase = 0.0
        for i in 0..<count {
            let t = Double(i) / Double(sampleRate)
            let pitch = 130 + 20 * sin(2 * Double.pi * 0.7 * t)
            phase += 2 * Double.pi * pitch / Double(sampleRate)
            // Syllables at about 4 a second; every 7th one silent (a pause between words).
            let syllable = Int(t * 4)
            let within = t * 4 - Double(syllable)
            let envelope = syllable % 7 == 6 ? 0 : sin(Double.pi * within) * (0.5 + 0.5 * sin(Double(syllable) * 1.7))
            // Harmonics weighted by a formant that moves from syllable to syllable (vowel changes).
            let formant = 500 + 700 * (0.5 + 0.5 * sin(Double(syllable) * 2.3))
            var value = 0.0
            for harmonic in 1...20 {
                let frequency = Double(harmonic) * pitch
                let weight = 1 / (1 + pow((frequency - formant) / 300, 2)) / Double(harmonic).squareRoot()
                value += weight * sin(Double(harmonic) * phase)
            }
            samples[i] = Int16(max(-32767, min(32767, value * envelope * 9000)))
        }
        return samples
    }
}
