import Essence2Runtime
import Glibc

/// Renders one reply as fast as the engine goes (unpaced pacing): pushes the speech, ends the
/// utterance and takes frames until the face is back at rest.
enum OfflineRender {
    /// What came out.
    struct Result {
        var speechFrames = 0
        var rampFrames = 0
        /// Idle frames handed out in the middle of the reply (not part of the video).
        var strayIdleFrames = 0
        /// Seconds from the first push to the idle frame that ended the reply.
        var seconds = 0.0
        /// Seconds from the first push to the first speech frame.
        var firstSpeechSeconds = 0.0
        var frames: Int { speechFrames + rampFrames }
    }

    /// Samples per push: small pushes keep the reply's audio flowing while frames are taken.
    static let pushSamples = 3200
    /// Seconds without any frame or accepted push after which the engine counts as stuck.
    static let stallSeconds = 30.0

    /// - Parameters:
    ///   - engine: set to unpaced pacing by the caller, in the mode wanted.
    ///   - frame: at least `engine.frameBytes` bytes; holds each frame while `onFrame` runs.
    ///   - onFrame: called for every SPEECH and RAMP frame with its kind and its index in the video.
    static func run(engine: Engine, samples: UnsafeBufferPointer<Int16>, frame: UnsafeMutableRawBufferPointer,
                    onFrame: (FrameKind, Int) throws(CLIError) -> Void) throws(CLIError) -> Result {
        var result = Result()
        var pushed = 0
        var ended = false
        let started = Clock.now()
        var lastProgress = started
        while true {
            try Interruption.check()
            var progressed = false
            while pushed < samples.count {
                let count = min(pushSamples, samples.count - pushed)
                guard engine.pushAudio(UnsafeBufferPointer(rebasing: samples[pushed..<(pushed + count)])) else { break }
                pushed += count
                progressed = true
            }
            if pushed == samples.count && !ended {
                engine.endUtterance()
                ended = true
            }
            if let kind = engine.pullFrame(into: frame) {
                progressed = true
                switch kind {
                case .speech, .ramp:
                    if result.frames == 0 { result.firstSpeechSeconds = Clock.now() - started }
                    try onFrame(kind, result.frames)
                    if kind == .speech { result.speechFrames += 1 } else { result.rampFrames += 1 }
                case .idle:
                    if ended && result.frames > 0 {
                        result.seconds = Clock.now() - started
                        return result
                    }
                    if result.frames > 0 { result.strayIdleFrames += 1 }
                }
            }
            let now = Clock.now()
            if progressed {
                lastProgress = now
            } else {
                if now - lastProgress > stallSeconds {
                    let health = engine.renderHealth
                    let reason = health.failures > 0 ? ": rendering failed \(health.failures) times, latest: \(health.reason)" : ""
                    throw CLIError("the engine produced no frame for \(Int(stallSeconds)) s (after \(result.frames) frames)\(reason)")
                }
                usleep(100)
            }
        }
    }
}
