import Essence2Runtime
import FuzzSupport

/// One call a host makes on an engine, read from the fuzz input: audio pushed or fed in any amount, at any
/// sample rate and with any samples, the end of a reply, an interrupt, frames taken, settings changed.
enum AudioStep: CaseIterable {
    case push, feed, feedFloat, endReply, interrupt, take, takeIdle, mode, pacing, playout, seed, model, dropFeed, status

    /// Push sizes around the engine's hop (160), its frames (640 and 800 samples) and its ring.
    static let sizes = [0, 1, 2, 159, 160, 161, 639, 640, 641, 799, 800, 801, 1600, 4096, 16000, 48000]
    static let rates = [Int.min, -1, 0, 1, 2, 7999, 8000, 11025, 16000, 22050, 24000, 44100, 48000, 96000, 192_000,
                        1_000_000, Int(Int32.max), Int.max]
    static let floats: [Float] = [0, -0.0, 1, -1, 0.5, .leastNonzeroMagnitude, 2, -2, 1e30, -1e30, .infinity, -.infinity, .nan,
                                  .greatestFiniteMagnitude, -.greatestFiniteMagnitude]

    /// Samples for a push or feed: read from the input while it lasts, then a pattern (silence, full scale, a
    /// square wave, a ramp).
    static func samples(_ count: Int, from input: inout FuzzInput) -> [Int16] {
        let pattern = input.below(4)
        return (0..<count).map { i in
            if !input.isAtEnd, i < 256 { return Int16(bitPattern: input.u16()) }
            switch pattern {
            case 0: return 0
            case 1: return i & 1 == 0 ? .max : .min
            case 2: return (i / 40) & 1 == 0 ? 12000 : -12000
            default: return Int16(truncatingIfNeeded: i &* 97)
            }
        }
    }

    func apply(from input: inout FuzzInput, to run: inout EngineRun) {
        let engine = run.engine
        switch self {
        case .push:
            let audio = Self.samples(input.pick(Self.sizes), from: &input)
            _ = audio.withUnsafeBufferPointer { engine.push($0) }
        case .feed:
            let audio = Self.samples(input.pick(Self.sizes), from: &input)
            _ = audio.withUnsafeBufferPointer { engine.feed($0, sampleRate: input.pick(Self.rates)) }
        case .feedFloat:
            let count = input.pick(Self.sizes)
            let audio = (0..<count).map { i in i < 64 ? input.pick(Self.floats) : Float(i % 50) / 50 - 0.5 }
            _ = audio.withUnsafeBufferPointer { engine.feed($0, sampleRate: input.pick(Self.rates)) }
        case .endReply:
            engine.endUtterance()
        case .interrupt:
            engine.reset()
        case .take, .takeIdle:
            // Whatever is due now, a few times (a frame may not be due: a live reply waits for its audio).
            for _ in 0..<(1 + input.below(4)) { run.tryFrame(idleOnly: self == .takeIdle) }
        case .mode:
            engine.setMode(input.byte() & 1 == 0 ? .full : .head)
        case .pacing:
            engine.setPacing(input.pick([.unpaced, .unpaced, .realtime, .audioClock]))
        case .playout:
            if input.byte() & 1 == 0 {
                engine.setPlayoutAnchor(input.byte() & 1 == 1)
            } else {
                engine.setPlayoutPosition(input.pick([Int64.min, -1, 0, 1, 639, 640, 641, 32000, Int64(Int32.max), Int64.max]))
            }
        case .seed:
            engine.setSeed(input.u64())
        case .model:
            engine.setLipSyncModel(input.byte() & 1 == 0 ? .learned : .v1)
        case .dropFeed:
            engine.dropWaitingFeed()
        case .status:
            _ = (engine.framesAvailable(), engine.pendingSamples, engine.isReady, engine.lastFrameKind,
                 engine.lastFrameIndex, engine.skippedFrames, engine.pulledSpeechFrames)
        }
    }
}
