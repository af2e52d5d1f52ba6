/// The learned model: per hop the log-mel bands (`LogMelAnalyzer`), the level relative to the recent peak
/// (`SpeechPeakTracker`) and the periodicity (`PeriodicityAnalyzer`); per frame, each member of the
/// `ArticulationEnsemble` maps the hops from 250 ms before the frame to 70 ms after it, and their mean is the frame.
struct LearnedArticulationPipeline: ArticulationPipeline {
    private static let historyHops = 64

    private let model: ArticulationEnsemble
    private var analyzer = LogMelAnalyzer()
    private var periodicity = PeriodicityAnalyzer()
    /// The peak tracker after the last committed hop.
    private var tracker = SpeechPeakTracker()
    /// Inputs of the most recent `historyHops` committed hops, hop `n` at `(n % historyHops) * inputCount`.
    private var history: [Float]
    /// The inputs of a hop of pure silence (also used for hops before the stream began).
    private let silence: [Float]
    /// Inputs of the hops of the frame being made (`model.contextHops` of them, oldest first).
    private var hops: [Float]
    /// One hop's inputs, and per member its window of hop embeddings and its scratch.
    private var inputs: [Float]
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
        silence = (0..<count).map { $0 < model.bandCount ? -100 : 0 }
        inputs = [Float](repeating: 0, count: count)
        history = [Float](repeating: 0, count: Self.historyHops * count)
        hops = [Float](repeating: 0, count: model.contextHops * count)
        windows = model.members.map { [Float](repeating: 0, count: $0.windowSize) }
        scratches = model.members.map { [Float](repeating: 0, count: $0.hidden1 + $0.hidden2) }
    }

    mutating func commit(hop n: Int, samples: SampleBuffer, start: Int, realEnd: Int) {
        var advanced = tracker
        analyzeHop(samples: samples, start: start, realEnd: realEnd, tracker: &advanced)
        tracker = advanced
        let count = model.inputCount
        let offset = (n % Self.historyHops) * count
        for i in 0..<count { history[offset + i] = inputs[i] }
    }

    mutating func frame(
        firstHop: Int, committedHops: Int, samples: SampleBuffer, nextHopStart: Int, realEnd: Int
    ) -> Articulation {
        let count = model.inputCount
        let context = model.contextHops
        // The inputs of the hops the longest member reads; the others read the most recent of them.
        let pastStart = firstHop + ArticulationHops.frameHops + ArticulationHops.aheadHops - context
        var start = nextHopStart
        var provisional = tracker
        for i in 0..<context {
            let n = pastStart + i
            if n < committedHops {
                let source = n >= 0 ? (n % Self.historyHops) * count : -1
                for j in 0..<count { hops[i * count + j] = source >= 0 ? history[source + j] : silence[j] }
            } else {
                // Not committed (only when flushing): analysed from silence-padded audio and not remembered.
                analyzeHop(samples: samples, start: start, realEnd: realEnd, tracker: &provisional)
                for j in 0..<count { hops[i * count + j] = inputs[j] }
                start += LogMelAnalyzer.hopLength
            }
        }
        var sum = (jaw: Float(0), spread: Float(0), press: Float(0))
        for (m, network) in model.members.enumerated() {
            let a = evaluate(network, member: m, skippingHops: context - network.contextHops)
            sum.jaw += a.jawOpen
            sum.spread += a.lipSpread
            sum.press += a.lipPress
        }
        let n = Float(model.members.count)
        previous = Articulation(jawOpen: sum.jaw / n, lipSpread: sum.spread / n, lipPress: sum.press / n).clamped()
        return previous
    }

    mutating func hold() -> Articulation {
        previous = previous.heldTowardRest()
        return previous
    }

    /// Member `m`'s articulation from `hops`, leaving out the oldest `skip` hops it does not read.
    private mutating func evaluate(
        _ network: ArticulationNetwork, member m: Int, skippingHops skip: Int
    ) -> Articulation {
        let count = model.inputCount
        let size = network.embeddingSize
        hops.withUnsafeBufferPointer { hops in
            windows[m].withUnsafeMutableBufferPointer { window in
                for i in 0..<network.contextHops {
                    let input = UnsafeBufferPointer(rebasing: hops[((skip + i) * count)..<((skip + i + 1) * count)])
                    network.embed(input, into: UnsafeMutableBufferPointer(rebasing: window[(i * size)..<((i + 1) * size)]))
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
