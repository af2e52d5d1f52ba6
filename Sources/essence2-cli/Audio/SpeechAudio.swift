import Essence2Runtime

/// Speech ready for the engine: 16 kHz mono int16 samples, and where they came from.
struct SpeechAudio {
    /// The engine's only input rate.
    static let sampleRate = StreamFormat.sampleRate

    var samples: [Int16]
    /// Rate of the file the samples were read from, in Hz.
    var sourceRate: Int
    /// Channel count of the file the samples were read from.
    var sourceChannels: Int

    /// Length in seconds.
    var duration: Double { Double(samples.count) / Double(Self.sampleRate) }
}
