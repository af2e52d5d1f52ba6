import CSDL2Loader
import Synchronization

/// The reply's sound on the sound card, and how much of it the card has played: the count of samples SDL's
/// callback has taken, less the device's own buffer (taken, not yet heard). The lips follow this count, not the
/// wall clock (`Essence2Playout`).
final class PlayerAudio: Sendable {
    private struct State {
        var samples: [Int16] = []
        var position = 0
        var started = false
    }

    private let state = Mutex(State())
    /// Sample frames in the device's buffer (taken by the callback before they are heard).
    let bufferFrames: Int
    let rate: Int

    init(rate: Int, bufferFrames: Int) {
        self.rate = rate
        self.bufferFrames = bufferFrames
    }

    /// Starts playing `samples` (a reply) from the beginning.
    func start(_ samples: [Int16]) {
        state.withLock { s in
            s.samples = samples
            s.position = 0
            s.started = true
        }
    }

    /// Stops at once (barge-in); nothing is playing afterwards.
    func stop() {
        state.withLock { s in
            s.samples = []
            s.position = 0
            s.started = false
        }
    }

    /// Whether a reply's sound has been started (and not stopped).
    var isStarted: Bool { state.withLock { $0.started } }

    /// Seconds of the current reply heard so far; nil before it started.
    var secondsPlayed: Double? {
        state.withLock { s in
            guard s.started else { return nil }
            return Double(max(0, s.position - bufferFrames)) / Double(rate)
        }
    }

    /// The audio callback's work: fills `count` mono int16 samples.
    func fill(_ out: UnsafeMutablePointer<Int16>, count: Int) {
        state.withLock { s in
            var written = 0
            if s.started {
                let take = min(count, s.samples.count - s.position)
                if take > 0 {
                    s.samples.withUnsafeBufferPointer { source in
                        guard let base = source.baseAddress else { return }
                        out.update(from: base + s.position, count: take)
                    }
                    written = take
                }
                // The position keeps counting past the end, so the last samples are counted as heard.
                s.position += count
            }
            if written < count { (out + written).update(repeating: 0, count: count - written) }
        }
    }
}

/// Samples the microphone delivered and the player has not fed yet.
final class MicrophoneBuffer: Sendable {
    private let pending = Mutex<[Int16]>([])

    func append(_ samples: UnsafeBufferPointer<Int16>) {
        pending.withLock { $0.append(contentsOf: samples) }
    }

    func drain() -> [Int16] {
        pending.withLock { buffer in
            let all = buffer
            buffer.removeAll(keepingCapacity: true)
            return all
        }
    }
}
