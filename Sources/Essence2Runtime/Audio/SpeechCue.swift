/// What one 40 ms frame of speech sounds like, for the head and face motion that follows the voice (not the
/// mouth): its loudness and, when voiced, its pitch. `ProsodyAnalyzer` measures it from the frame's own audio.
package struct SpeechCue: Sendable, Equatable, Hashable {
    /// Level of the frame, dBFS (a full-scale sine reads about -3; digital silence reads `floorLevel`).
    package var level: Float
    /// Fundamental frequency, Hz, when the frame is voiced; 0 when it is not (silence, noise, unvoiced sounds).
    package var pitch: Float

    package init(level: Float, pitch: Float) {
        self.level = level
        self.pitch = pitch
    }

    /// The level that stands for silence, dBFS.
    package static let floorLevel: Float = -100
    /// A frame of silence (and of held frames that have no audio).
    package static let silence = SpeechCue(level: floorLevel, pitch: 0)

    /// The frame is voiced: a pitch was found.
    package var isVoiced: Bool { pitch > 0 }
}
