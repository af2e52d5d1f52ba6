/// The engine's fixed stream format and limits: the one Swift source of the numbers that include/essence2.h
/// states as `BE_ESSENCE2_SAMPLE_RATE`, `BE_ESSENCE2_FPS`, `BE_ESSENCE2_SAMPLES_PER_FRAME` and
/// `BE_ESSENCE2_RING_SAMPLES` (a test reads the header and checks that both say the same).
package enum StreamFormat {
    /// Hz; audio in is 16 kHz mono signed 16-bit.
    package static let sampleRate = 16_000
    /// Frames out per second.
    package static let framesPerSecond = 25
    /// Samples of audio per frame (40 ms).
    package static let samplesPerFrame = sampleRate / framesPerSecond
    /// Capacity of an engine's audio ring in samples (16 s); a single push may not be larger.
    package static let ringSamples = 16 * sampleRate
}
