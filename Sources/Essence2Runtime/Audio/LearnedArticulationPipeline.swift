/// The learned model: per hop the log-mel bands (`LogMelAnalyzer`), the level relative to the recent peak
/// (`SpeechPeakTracker`) and the periodicity (`PeriodicityAnalyzer`); per frame, each member of the
/// `ArticulationEnsemble` maps the hops from 250 ms before the frame to 70 ms after it, and their mean, its press and
/// tuck combined (`Articulation(learned:)`), is the frame.
struct LearnedArticulationPipeline: ArticulationPipeline {
    private static let historyHops = 64

    private let model: ArticulationEnsemble
    private var analyzer = LogMelAnalyzer()
    private var periodicity = PeriodicityAnalyzer()
    /// The peak tracker after the last committed hop.
    private var tracker = SpeechPeakTracker()
    /// Per member, the embeddings of the most recent `historyHops` committed hops, hop `n` at
    /// `(n % historyHops) * embeddingSize`: a committed hop's inputs never change, so it is embedded once.
    private var embedded: [[Float]]
    /// Per member, the embedding of a hop of pure silence (the hops before the stream began).
    private let silenceEmbedding: [[Float]]
    /// One hop's inputs, and the inputs of the hops of a flushed frame that are not committed (oldest first).
    private var inputs: [Float]
    private var pending: [Float]
    /// Per member, its window of hop embeddings and its scratch.
    private var windows: [[Float]]
    private var scratches: [[Float]]
    private var previous = Articulation.rest

    init(model: ArticulationEnsemble = .shipped) {
        precondition(
            model.bandCount == LogMelAnalyzer.bandCount && model.contextHops <= Self.historyHops,
            "lip-sync model does not fit its features")
        self.model = model
        let count = model.inputCount
        // Pure silence: every band at the floor, level 0 against the peak (it is the loudest so far), periodicity 0.
        let silence: [Float] = (0..<count).map { $0 < model.bandCount ? -100 : 0 }
        silenceEmbedding = model.members.map { network in
            var e = [Float](repeating: 0, count: network.embeddingSize)
            silence.withUnsafeBufferPointer { x in e.withUnsafeMutableBufferPointer { network.embed(x, into: $0) } }
            return e
        }
        inputs = [Float](repeating: 0, count: count)
        pending = [Float](repeating: 0, count: model.contextHops * count)
        embedded = model.members.map { [Float](repeating: 0, count: Self.historyHops * $0.embeddingSize) }
        windows = model.members.map { [Float](repeating: 0, count: $0.windowSize) }
        scratches = model.members.map { [Float](repeating: 0, count: $0.hidden1 + $0.hidden2) }
    }

    mutating func commit(hop n: Int, samples: SampleBuffer, start: Int, realEnd: Int) {
        var advanced = tracker
        analyzeHop(samples: samples, start: start, realEnd: realEnd, tracker: &advanced)
        tracker = advanced
        let slot = n % Self.historyHops
        inputs.withUnsafeBufferPointer { x in
            for (m, network) in model.members.enumerated() {
                let size = network.embeddingSize
                embedded[m].withUnsafeMutableBufferPointer {
                    network.embed(x, into: UnsafeMutableBufferPointer(rebasing: $0[(slot * size)..<((slot + 1) * size)]))
                }
            }
        }
    }

    mutating func frame(
        firstHop: Int, committedHops: Int, samples: SampleBuffer, nextHopStart: Int, realEnd: Int
    ) -> Articulation {
        let count = model.inputCount
        let context = model.contextHops
        // The hops the longest member reads; the others read the most recent of them. Those not committed yet
        // (only when flushing) are analysed, in order, from the silence-padded audio and not remembered.
        let end = firstHop + ArticulationHops.frameHops + ArticulationHops.aheadHops
        precondition(committedHops >= end - context, "a hop the frame reads was dropped before it was committed")
        var start = nextHopStart
        var provisional = tracker
        for p in 0..<max(0, end - committedHops) {
            analyzeHop(samples: samples, start: start, realEnd: realEnd, tracker: &provisional)
            for j in 0..<count { pending[p * count + j] = inputs[j] }
            start += LogMelAnalyzer.hopLength
        }
        var sum = SIMD4<Float>.zero
        for (m, network) in model.members.enumerated() {
            sum += evaluate(network, member: m, firstHop: end - network.contextHops, committedHops: committedHops)
        }
        previous = Articulation(learned: sum / Float(model.members.count))
        return previous
    }

    mutating func hold() -> Articulation {
        previous = previous.heldTowardRest()
        return previous
    }

    /// Member `m`'s outputs (`ArticulationNetwork.evaluate`) from the hops `firstHop ..< firstHop + network.contextHops`: committed ones from
    /// its embeddings, the rest from `pending`.
    private mutating func evaluate(
        _ network: ArticulationNetwork, member m: Int, firstHop: Int, committedHops: Int
    ) -> SIMD4<Float> {
        let count = model.inputCount
        let size = network.embeddingSize
        pending.withUnsafeBufferPointer { pending in
            embedded[m].withUnsafeBufferPointer { embedded in
                silenceEmbedding[m].withUnsafeBufferPointer { silence in
                    windows[m].withUnsafeMutableBufferPointer { window in
                        for i in 0..<network.contextHops {
                            let n = firstHop + i
                            let slot = UnsafeMutableBufferPointer(rebasing: window[(i * size)..<((i + 1) * size)])
                            if n < 0 {
                                _ = slot.update(fromContentsOf: silence)
                            } else if n < committedHops {
                                let ring = (n % Self.historyHops) * size
                                _ = slot.update(fromContentsOf: embedded[ring..<(ring + size)])
                            } else {
                                let p = n - committedHops
                                network.embed(UnsafeBufferPointer(rebasing: pending[(p * count)..<((p + 1) * count)]),
                                              into: slot)
                            }
                        }
                    }
                }
            }
        }
        return windows[m].withUnsafeBufferPointer { w in
            scratches[m].withUnsafeMutableBufferPointer { network.evaluate(window: w, scratch: $0) }
        }
    }

    /// Analyses the hop whose window starts at `start` into `inputs`, advancing `tracker` by it.
    private mutating func analyzeHop(
        samples: SampleBuffer, start: Int, realEnd: Int, tracker: inout SpeechPeakTracker
    ) {
        let bandCount = model.bandCount
        let level = inputs.withUnsafeMutableBufferPointer {
            analyzer.analyze(
                samples, start: start, realEnd: realEnd, into: UnsafeMutableBufferPointer(rebasing: $0[0..<bandCount]))
        }
        let relative = tracker.advance(level: level)
        if model.extraInputs >= 1 { inputs[bandCount] = relative }
        if model.extraInputs >= 2 {
            inputs[bandCount + 1] = periodicity.analyze(
                samples, end: start + LogMelAnalyzer.windowLength, realEnd: realEnd)
        }
    }
}
