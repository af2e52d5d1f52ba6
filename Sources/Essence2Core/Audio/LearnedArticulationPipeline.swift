/// The learned model: log-mel bands per hop (`LogMelAnalyzer`), embedded per hop and mapped per frame by
/// `ArticulationNetwork` from 250 ms of context before the frame to 70 ms after it.
struct LearnedArticulationPipeline: ArticulationPipeline {
    private static let historyHops = 64

    private let network: ArticulationNetwork
    private var analyzer = LogMelAnalyzer()
    /// Embeddings of the most recent `historyHops` committed hops, hop `n` at `(n % historyHops) * embeddingSize`.
    private var history: [Float]
    /// The embedding of a hop of silence (also used for hops before the stream began).
    private let silence: [Float]
    private var window: [Float]
    private var bands = [Float](repeating: 0, count: LogMelAnalyzer.bandCount)
    /// The embedding of the hop analysed last.
    private var embedding: [Float]
    private var scratch: [Float]
    private var previous = Articulation.rest

    init(network: ArticulationNetwork = .shipped) {
        precondition(
            network.bandCount == LogMelAnalyzer.bandCount && network.contextHops <= Self.historyHops,
            "lip-sync network does not fit its features")
        self.network = network
        let size = network.embeddingSize
        var silent = [Float](repeating: 0, count: size)
        let floor = [Float](repeating: -100, count: network.bandCount)
        floor.withUnsafeBufferPointer { b in silent.withUnsafeMutableBufferPointer { network.embed(b, into: $0) } }
        silence = silent
        embedding = [Float](repeating: 0, count: size)
        history = [Float](repeating: 0, count: Self.historyHops * size)
        window = [Float](repeating: 0, count: network.windowSize)
        scratch = [Float](repeating: 0, count: network.hidden1 + network.hidden2)
    }

    mutating func commit(hop n: Int, samples: SampleBuffer, start: Int, realEnd: Int) {
        let size = network.embeddingSize
        let offset = (n % Self.historyHops) * size
        embedHop(samples: samples, start: start, realEnd: realEnd)
        for i in 0..<size { history[offset + i] = embedding[i] }
    }

    mutating func frame(
        firstHop: Int, committedHops: Int, samples: SampleBuffer, nextHopStart: Int, realEnd: Int
    ) -> Articulation {
        let size = network.embeddingSize
        let pastStart = firstHop - network.pastHops
        var start = nextHopStart
        for i in 0..<network.contextHops {
            let n = pastStart + i
            if n < committedHops {
                let source = n >= 0 ? (n % Self.historyHops) * size : -1
                window.withUnsafeMutableBufferPointer { w in
                    for j in 0..<size { w[i * size + j] = source >= 0 ? history[source + j] : silence[j] }
                }
            } else {
                // Not committed (only when flushing): analysed from silence-padded audio and not remembered.
                embedHop(samples: samples, start: start, realEnd: realEnd)
                for j in 0..<size { window[i * size + j] = embedding[j] }
                start += LogMelAnalyzer.hopLength
            }
        }
        let network = network
        previous = window.withUnsafeBufferPointer { w in
            scratch.withUnsafeMutableBufferPointer { network.evaluate(window: w, scratch: $0) }
        }
        return previous
    }

    mutating func hold() -> Articulation {
        previous = previous.heldTowardRest()
        return previous
    }

    /// Analyses the hop whose window starts at `start` into `embedding`.
    private mutating func embedHop(samples: SampleBuffer, start: Int, realEnd: Int) {
        bands.withUnsafeMutableBufferPointer { analyzer.analyze(samples, start: start, realEnd: realEnd, into: $0) }
        let network = network
        bands.withUnsafeBufferPointer { b in embedding.withUnsafeMutableBufferPointer { network.embed(b, into: $0) } }
    }
}
