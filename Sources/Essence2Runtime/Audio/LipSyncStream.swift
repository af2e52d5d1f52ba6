/// Streaming audio -> articulation for one reply. 16 kHz mono Int16. Frame k covers samples [640k, 640k+640).
///
/// Audio is analysed in 25 ms windows every 10 ms and a window of those hops around each 40 ms frame, with up to
/// `lookaheadSamples` of look-ahead, gives one `Articulation` per frame. `LipSyncModel.learned` (the default) reads
/// log-mel bands with a small network (`LearnedArticulationPipeline`); `.v1` maps loudness and spectral cues by hand
/// (`CueArticulationPipeline`). Output depends only on the audio, never on how it was split into `append` calls
/// (flushes and held frames aside, which are explicit events).
///
/// After a flush that ended on a partial frame, the next frame starts right after the audio that frame consumed.
package struct LipSyncStream: Sendable {
    package static let samplesPerFrame = StreamFormat.samplesPerFrame
    /// Audio past the end of a frame that its articulation may use: 77.5 ms (the 25 ms window of the last
    /// look-ahead hop, which starts 70 ms ahead of the frame's last hop).
    package static let lookaheadSamples = lookahead(frameHops: ArticulationHops.frameHops)

    /// The look-ahead of a stream whose frames hold `frameHops` hops: the same 77.5 ms past the frame's end.
    static func lookahead(frameHops: Int) -> Int {
        (frameHops + ArticulationHops.aheadHops - 1) * hopLength - windowLead + windowLength - frameHops * hopLength
    }

    private static let hopLength = 160
    private static let windowLength = 400
    /// How far a hop's window starts before the hop's own 160 samples: the window is centred on them.
    private static let windowLead = (windowLength - hopLength) / 2
    /// How far before a hop's 25 ms window the learned model's periodicity window starts (it ends with it).
    private static let periodicityLead = PeriodicityAnalyzer.windowLength - windowLength

    private var samples = SampleBuffer()
    private var pipeline: any ArticulationPipeline
    private var prosody: ProsodyAnalyzer
    /// Hops per frame: 4 (40 ms, Essence 2) or 5 (50 ms, Expression 2). The model reads a frame's last four
    /// hops as its own, with the same look-ahead after them.
    private let frameHops: Int
    /// This stream's samples per frame and look-ahead.
    package let frameSamples: Int
    package let lookahead: Int
    private var tongue = TongueTipTracker()
    /// Loudness and pitch of the frame `nextFrame` or `holdFrame` last returned (`SpeechCue.silence` for a
    /// held frame and before the first frame).
    package private(set) var lastCue = SpeechCue.silence
    /// The samples the last frame consumed (up to 640; none for a held frame).
    package private(set) var lastFrameAudio: [Int16] = []
    /// Hops analysed from real audio (so final); also the number of the next hop to analyse.
    private var committedHops = 0
    /// Absolute stream position where the window of hop `committedHops` starts.
    private var nextHopStart = -LipSyncStream.windowLead
    /// Number of the next frame's first hop.
    private var frameHop = 0
    /// Absolute stream position of the next frame's first sample.
    private var frameStart = 0

    /// The mapping this stream uses.
    package let model: LipSyncModel

    package init(model: LipSyncModel = .learned, cadence: FrameCadence = .essence2, weights: LipSyncWeights = .shipped) {
        self.model = model
        frameHops = cadence.frameHops
        frameSamples = cadence.samplesPerFrame
        lookahead = Self.lookahead(frameHops: cadence.frameHops)
        prosody = ProsodyAnalyzer(frameLength: cadence.samplesPerFrame)
        switch model {
        case .learned: pipeline = LearnedArticulationPipeline(model: weights.ensemble)
        case .v1: pipeline = CueArticulationPipeline()
        }
    }

    package mutating func append(_ samples: UnsafeBufferPointer<Int16>) {
        self.samples.append(samples)
    }

    /// Samples appended but not yet consumed by frames.
    package var bufferedSamples: Int { samples.end - frameStart }

    /// Articulation of the next frame, consuming its (up to) 640 samples.
    /// Returns nil when fewer than 640 + lookaheadSamples samples are buffered, unless `flush` is true: then missing
    /// audio (the rest of a last partial frame, and the look-ahead) counts as silence, and nil only when nothing at
    /// all is buffered. Flushing does not insert silence permanently: audio appended after a flushed frame is
    /// analysed as it really is.
    package mutating func nextFrame(flush: Bool) -> Articulation? {
        let buffered = bufferedSamples
        guard buffered >= frameSamples + lookahead || (flush && buffered > 0) else { return nil }
        let realEnd = samples.end
        let lastHop = frameHop + frameHops + ArticulationHops.aheadHops - 1
        // Commit every hop of the window whose audio is all here, in order.
        while committedHops <= lastHop && nextHopStart + Self.windowLength <= realEnd {
            pipeline.commit(hop: committedHops, samples: samples, start: nextHopStart, realEnd: realEnd)
            committedHops += 1
            nextHopStart += Self.hopLength
        }
        let articulation = tongue.apply(to: calibrated(pipeline.frame(
            firstHop: frameHop + frameHops - ArticulationHops.frameHops, committedHops: committedHops, samples: samples, nextHopStart: nextHopStart,
            realEnd: realEnd)))

        lastCue = prosody.analyze(samples, start: frameStart, realEnd: realEnd)
        let consumed = min(buffered, frameSamples)
        lastFrameAudio = samples.samples(from: frameStart, count: consumed)
        frameStart += consumed
        if consumed == frameSamples {
            frameHop += frameHops
        } else {
            // A flushed partial frame: the next frame starts where its audio ended, on a fresh hop grid.
            frameHop = committedHops
            nextHopStart = frameStart - Self.windowLead
        }
        samples.discard(before: min(frameStart - Self.windowLead, nextHopStart) - Self.periodicityLead)
        return articulation
    }

    /// A frame of held silence that consumes no audio (used when a live reply's audio runs dry): the mouth eases
    /// closed smoothly.
    package mutating func holdFrame() -> Articulation {
        lastCue = .silence
        lastFrameAudio = []
        return tongue.hold(calibrated(pipeline.hold()))
    }

    /// The learned model's articulation with its rounding calibrated (`Articulation.roundingCalibrated()`); v1's as
    /// it is.
    private func calibrated(_ a: Articulation) -> Articulation {
        model == .learned ? a.roundingCalibrated() : a
    }
}
