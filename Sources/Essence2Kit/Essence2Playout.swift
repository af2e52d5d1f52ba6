/// A player of the reply's audio that the face follows: how much of the current reply it has played, in
/// seconds, or nil before the reply's audio has started. The Linux stand-in for the `AVAudioPlayerNode` the
/// reference follows: implement it on your sound device's played-sample count (not the wall clock), so the
/// lips stay on the sound that is actually heard.
public protocol Essence2Playout: Sendable {
    /// Seconds of the current reply's audio played so far, or nil before it started.
    var secondsPlayed: Double? { get }
}
