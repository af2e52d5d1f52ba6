/// Streaming audio -> articulation for one reply. 16 kHz mono Int16. Frame k covers samples [640k, 640k+640).
///
/// Audio is analysed in 25 ms windows every 10 ms (`SpectralAnalyzer`), normalised against the running noise floor
/// and speech peak (`LevelTracker`), and mapped to one `Articulation` per 40 ms frame (`ArticulationMapper`) from
/// 160 ms of context and up to `lookaheadSamples` of look-ahead. Output depends only on the audio, never on how
/// it was split into `append` calls (flushes and held frames aside, which are explicit events).
///
/// After a flush that ended on a partial frame, the next frame starts right after the audio that frame consumed.
public struct LipSyncStream: Sendable {
    public static let samplesPerFrame = 640
    /// Audio past the end of a frame that its articulation may use: 77.5 ms (the 25 ms window of the last
    /// look-ahead hop, which starts 70 ms ahead of the frame's last hop).
    public static let lookaheadSamples = (ArticulationMapper.frameHops + ArticulationMapper.aheadHops - 1)
        * SpectralAnalyzer.hopLength - windowLead + SpectralAnalyzer.windowLength - samplesPerFrame

    /// How far a hop's window starts before the hop's own 160 samples: the window is centred on them.
    private static let windowLead = (SpectralAnalyzer.windowLength - SpectralAnalyzer.hopLength) / 2
    private static let historyHops = 32

    private var samples = SampleBuffer()
    private var analyzer = SpectralAnalyzer()
    private var tracker = LevelTracker()
    private var mapper = ArticulationMapper()
    /// Cues of the most recent `historyHops` committed hops, indexed by hop number modulo `historyHops`.
    private var history = [HopCues](repeating: .silence, count: LipSyncStream.historyHops)
    private var window = [HopCues](repeating: .silence, count: ArticulationMapper.windowHops)
    /// Hops analysed from real audio (so their cues are final); also the number of the next hop to analyse.
    private var committedHops = 0
    /// Absolute stream position where the window of hop `committedHops` starts.
    private var nextHopStart = -LipSyncStream.windowLead
    /// Number of the next frame's first hop.
    private var frameHop = 0
    /// Absolute stream position of the next frame's first sample.
    private var frameStart = 0

    public init() {}

    public mutating func append(_ samples: UnsafeBufferPointer<Int16>) {
        self.samples.append(samples)
    }

    /// Samples appended but not yet consumed by frames.
    public var bufferedSamples: Int { samples.end - frameStart }

    /// Articulation of the next frame, consuming its (up to) 640 samples.
    /// Returns nil when fewer than 640 + lookaheadSamples samples are buffered, unless `flush` is true: then missing
    /// audio (the rest of a last partial frame, and the look-ahead) counts as silence, and nil only when nothing at
    /// all is buffered. Flushing does not insert silence permanently: audio appended after a flushed frame is
    /// analysed as it really is.
    public mutating func nextFrame(flush: Bool) -> Articulation? {
        let buffered = bufferedSamples
        guard buffered >= Self.samplesPerFrame + Self.lookaheadSamples || (flush && buffered > 0) else { return nil }
        let hop = SpectralAnalyzer.hopLength
        let realEnd = samples.end
        let lastHop = frameHop + ArticulationMapper.frameHops + ArticulationMapper.aheadHops - 1
        // Commit every hop of the window whose audio is all here, in order.
        while committedHops <= lastHop && nextHopStart + SpectralAnalyzer.windowLength <= realEnd {
            let cues = tracker.advance(analyzer.analyze(samples, start: nextHopStart, realEnd: realEnd))
            history[committedHops % Self.historyHops] = cues
            committedHops += 1
            nextHopStart += hop
        }
        let pastStart = frameHop - ArticulationMapper.pastHops
        for i in 0..<ArticulationMapper.windowHops where pastStart + i < committedHops {
            let n = pastStart + i
            window[i] = n >= 0 ? history[n % Self.historyHops] : .silence
        }
        // Hops still missing audio (only when flushing): provisional cues from silence-padded audio and a copy of
        // the tracker, so nothing provisional is remembered.
        if committedHops <= lastHop {
            var provisional = tracker
            var start = nextHopStart
            for n in committedHops...lastHop {
                window[n - pastStart] = provisional.advance(analyzer.analyze(samples, start: start, realEnd: realEnd))
                start += hop
            }
        }
        let articulation = window.withUnsafeBufferPointer { mapper.frame($0) }

        let consumed = min(buffered, Self.samplesPerFrame)
        frameStart += consumed
        if consumed == Self.samplesPerFrame {
            frameHop += ArticulationMapper.frameHops
        } else {
            // A flushed partial frame: the next frame starts where its audio ended, on a fresh hop grid.
            frameHop = committedHops
            nextHopStart = frameStart - Self.windowLead
        }
        samples.discard(before: min(frameStart - Self.windowLead, nextHopStart))
        return articulation
    }

    /// A frame of held silence that consumes no audio (used when a live reply's audio runs dry): the mouth eases
    /// closed smoothly.
    public mutating func holdFrame() -> Articulation {
        mapper.hold()
    }
}
