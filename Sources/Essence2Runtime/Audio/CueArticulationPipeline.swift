/// Version 1: hand-tuned loudness and spectral cues (`SpectralAnalyzer`, `LevelTracker`) mapped by
/// `ArticulationMapper`, with 160 ms of context.
struct CueArticulationPipeline: ArticulationPipeline {
    private static let historyHops = 32

    private var analyzer = SpectralAnalyzer()
    private var tracker = LevelTracker()
    private var mapper = ArticulationMapper()
    /// Cues of the most recent `historyHops` committed hops, indexed by hop number modulo `historyHops`.
    private var history = [HopCues](repeating: .silence, count: CueArticulationPipeline.historyHops)
    private var window = [HopCues](repeating: .silence, count: ArticulationMapper.windowHops)

    mutating func commit(hop n: Int, samples: SampleBuffer, start: Int, realEnd: Int) {
        history[n % Self.historyHops] = tracker.advance(analyzer.analyze(samples, start: start, realEnd: realEnd))
    }

    mutating func frame(
        firstHop: Int, committedHops: Int, samples: SampleBuffer, nextHopStart: Int, realEnd: Int
    ) -> Articulation {
        let pastStart = firstHop - ArticulationMapper.pastHops
        let lastHop = pastStart + ArticulationMapper.windowHops - 1
        for i in 0..<ArticulationMapper.windowHops where pastStart + i < committedHops {
            let n = pastStart + i
            window[i] = n >= 0 ? history[n % Self.historyHops] : .silence
        }
        // Provisional cues from a copy of the tracker, so nothing provisional is remembered.
        if committedHops <= lastHop {
            var provisional = tracker
            var start = nextHopStart
            for n in committedHops...lastHop {
                window[n - pastStart] = provisional.advance(analyzer.analyze(samples, start: start, realEnd: realEnd))
                start += SpectralAnalyzer.hopLength
            }
        }
        return window.withUnsafeBufferPointer { mapper.frame($0) }
    }

    mutating func hold() -> Articulation {
        mapper.hold()
    }
}
