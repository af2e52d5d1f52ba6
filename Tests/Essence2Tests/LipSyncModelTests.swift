import Glibc
import Testing
@testable import Essence2Runtime
@testable import Essence2Vision
@testable import Essence2Authoring

/// Fixtures written by tools/lipsync/export.py from speech_bilabial.wav: Python's inputs of every hop the engine
/// analyses (32 log-mel bands, the relative level, the periodicity), and the Python model's articulation of every
/// frame.
enum LipSyncModelFixture {
    /// Rows of numbers of a fixture text file ('#' lines are comments).
    static func rows(_ name: String) throws -> [[Double]] {
        let bytes = try #require(SpeechFixture.bytes(ofFile: "\(SpeechFixture.directory)/\(name)"), "missing \(name)")
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n")
            .filter { !$0.hasPrefix("#") }
            .map { $0.split(separator: " ").compactMap { Double($0) } }
    }

    /// The engine's inputs of hops 0 ..< `count` of `samples` (the whole audio buffered, nothing after it): the
    /// log-mel bands, then the relative level and the periodicity.
    static func inputs(_ samples: [Int16], hops count: Int) -> [[Float]] {
        var buffer = SampleBuffer()
        samples.withUnsafeBufferPointer { buffer.append($0) }
        var analyzer = LogMelAnalyzer()
        var tracker = SpeechPeakTracker()
        var periodicity = PeriodicityAnalyzer()
        var row = [Float](repeating: 0, count: LogMelAnalyzer.bandCount)
        return (0..<count).map { h in
            let start = 160 * h - 120
            let level = row.withUnsafeMutableBufferPointer {
                analyzer.analyze(buffer, start: start, realEnd: samples.count, into: $0)
            }
            let relative = tracker.advance(level: level)
            return row + [relative, periodicity.analyze(buffer, end: start + 400, realEnd: samples.count)]
        }
    }

    /// The log-mel bands alone.
    static func bands(_ samples: [Int16], hops count: Int) -> [[Float]] {
        inputs(samples, hops: count).map { Array($0.prefix(LogMelAnalyzer.bandCount)) }
    }
}

@Test func hopInputsMatchThePythonFeatures() throws {
    let samples = try SpeechFixture.samples("speech_bilabial")
    let expected = try LipSyncModelFixture.rows("lipsync_features.txt")
    #expect(expected.count == 4 * ((samples.count + 639) / 640) + 7)
    let actual = LipSyncModelFixture.inputs(samples, hops: expected.count)
    let bands = LogMelAnalyzer.bandCount
    var worstBand = 0.0, worstLevel = 0.0, worstPeriodicity = 0.0
    for (a, e) in zip(actual, expected) {
        try #require(e.count == bands + 2)
        for i in 0..<bands { worstBand = max(worstBand, abs(Double(a[i]) - e[i])) }
        worstLevel = max(worstLevel, abs(Double(a[bands]) - e[bands]))
        worstPeriodicity = max(worstPeriodicity, abs(Double(a[bands + 1]) - e[bands + 1]))
    }
    // Float32 in Swift against float64 in NumPy: bands and level in dB, periodicity 0...1.
    #expect(worstBand < 2e-3, "largest band difference \(worstBand) dB")
    #expect(worstLevel < 2e-3, "largest relative level difference \(worstLevel) dB")
    #expect(worstPeriodicity < 1e-4, "largest periodicity difference \(worstPeriodicity)")
    // The fixture has voiced speech (periodic), pauses (0) and dips below the talker's peak.
    #expect(expected.contains { $0[bands + 1] > 0.9 } && expected.contains { $0[bands + 1] == 0 })
    #expect(expected.contains { $0[bands] < -20 } && expected.contains { $0[bands] == 0 })
}

@Test func silentWindowGivesTheFloorInEveryBand() {
    let bands = LipSyncModelFixture.bands([Int16](repeating: 0, count: 2000), hops: 3)
    #expect(bands.allSatisfy { $0.allSatisfy { $0 == -100 } })
}

@Test func learnedStreamMatchesThePythonModel() throws {
    let samples = try SpeechFixture.samples("speech_bilabial")
    let expected = try LipSyncModelFixture.rows("lipsync_model.txt")
    let frames = LipSyncDriver.frames(samples, model: .learned)
    #expect(frames.count == expected.count)
    var worst = 0.0
    for (a, e) in zip(frames, expected) {
        // The fixture is the model's mean outputs (jaw, spread, press and, from a network of 4 outputs, tuck); the
        // stream combines its press and tuck and calibrates its rounding.
        let shipped = try #require(ArticulationEnsemble.shipped.members.first).outputCount
        try #require(e.count == shipped)
        let outputs = SIMD4(Float(e[0]), Float(e[1]), Float(e[2]), e.count > 3 ? Float(e[3]) : 0)
        let model = Articulation(learned: outputs).roundingCalibrated()
        worst = max(
            worst, abs(Double(a.jawOpen - model.jawOpen)), abs(Double(a.lipSpread - model.lipSpread)),
            abs(Double(a.lipPress - model.lipPress)))
    }
    #expect(worst < 3e-4, "largest difference \(worst)")
}

@Test func theLearnedModelsRoundingIsCalibratedAndItsSpreadIsNot() {
    // Open lips: the full gain; pressed lips (p, b, m next to a rounded vowel): none, so they stay sealed.
    let o = Articulation(jawOpen: 0.4, lipSpread: -0.2).roundingCalibrated()
    #expect(abs(o.lipSpread + 0.2 * Articulation.roundingGain) < 1e-6 && o.jawOpen == 0.4 && o.lipPress == 0)
    #expect(Articulation(jawOpen: 0.2, lipSpread: -0.5).roundingCalibrated().lipSpread == -1)
    #expect(Articulation(jawOpen: 0, lipSpread: -0.3, lipPress: 1).roundingCalibrated().lipSpread == -0.3)
    let half = Articulation(jawOpen: 0.1, lipSpread: -0.2, lipPress: 0.5).roundingCalibrated().lipSpread
    #expect(half < -0.2 && half > -0.2 * Articulation.roundingGain)
    #expect(Articulation(jawOpen: 0.5, lipSpread: 0.6).roundingCalibrated().lipSpread == 0.6)
    let spreads = stride(from: Float(0), through: -1, by: -0.05).map {
        Articulation(jawOpen: 0.3, lipSpread: $0).roundingCalibrated().lipSpread
    }
    #expect(zip(spreads, spreads.dropFirst()).allSatisfy { $0 >= $1 }, "rounding grows with the model's")
}

@Test func embeddedWeightsDecodeWithTheirSizeAndHash() throws {
    let bytes = ShippedWeights.bytes
    #expect(bytes.count == ShippedWeights.byteCount)
    #expect(bytes.count <= 2_000_000)
    #expect(SHA256.hex(SHA256.hash(bytes)) == ShippedWeights.sha256)
    let model = try #require(ArticulationEnsemble.decode(bytes, sha256: ShippedWeights.sha256))
    #expect(model.members.count == 3)
    for network in model.members {
        #expect(network.bandCount == LogMelAnalyzer.bandCount)
        #expect(network.extraInputs == 2)
        #expect(network.contextHops == network.pastHops + 4 + 7)
    }
    #expect(Set(model.members.map(\.layer1Weights)).count == model.members.count)  // trained apart
    #expect(ArticulationEnsemble.shipped.members.map(\.layer1Weights) == model.members.map(\.layer1Weights))
}

@Test func weightsWithAWrongHashOrDamagedBytesAreRefused() throws {
    let good = ShippedWeights.bytes
    let wrongHash = String(repeating: "0", count: 64)
    #expect(ArticulationEnsemble.decode(good, sha256: wrongHash) == nil)
    #expect(ArticulationEnsemble(bytes: good) != nil)
    #expect(ArticulationEnsemble(bytes: Array(good.dropLast(2))) == nil)
    #expect(ArticulationEnsemble(bytes: good + [0, 0]) == nil)
    #expect(ArticulationEnsemble(bytes: []) == nil)
    #expect(ArticulationEnsemble(bytes: Array(good.prefix(12))) == nil)
    // The file re-written with one tensor changed (or left out, or one added).
    let file = try NeuralWeights(bytes: good)
    #expect(file.bytes == good)
    func changed(_ name: String, _ tensor: NeuralTensor?, kind: String = ArticulationEnsemble.kind) -> [UInt8] {
        var tensors = file.names.compactMap { n in n == name ? tensor.map { (n, $0) } : (n, file.tensors[n]!) }
        if file.tensors[name] == nil, let tensor { tensors.append((name, tensor)) }
        return NeuralWeights(kind: kind, tensors: tensors).bytes
    }
    func members(_ n: Int32) -> [UInt8] { changed("members", NeuralTensor(shape: [], ints: [n])) }
    #expect(ArticulationEnsemble(bytes: changed("members", nil, kind: "essence2-other")) == nil)  // another network
    #expect(ArticulationEnsemble(bytes: members(0)) == nil)  // no members
    #expect(ArticulationEnsemble(bytes: members(4)) == nil)  // more members than the file holds
    #expect(ArticulationEnsemble(bytes: members(2)) == nil)  // fewer: the last member's tensors are left over
    #expect(ArticulationEnsemble(bytes: members(200)) == nil)  // more than maxMembers
    #expect(ArticulationEnsemble(bytes: changed("members", nil)) == nil)  // no member count
    let sizes = try file.ints("0.geometry", count: 8).map(Int32.init)
    func geometry(_ index: Int, _ value: Int32) -> [UInt8] {
        var g = sizes
        g[index] = value
        return changed("0.geometry", NeuralTensor(shape: [8], ints: g))
    }
    #expect(ArticulationEnsemble(bytes: geometry(1, 3)) == nil)  // more extra inputs than the pipeline has
    #expect(ArticulationEnsemble(bytes: geometry(3, sizes[3] + 1)) == nil)  // contextHops no longer past + 4 + 7
    #expect(ArticulationEnsemble(bytes: geometry(2, 0)) == nil)  // an embedding of size 0
    #expect(ArticulationEnsemble(bytes: geometry(2, sizes[2] + 1)) == nil)  // the arrays no longer fit the sizes
    let bias = try #require(file.tensors["0.output.bias"])
    #expect(ArticulationEnsemble(bytes: changed("0.output.bias", NeuralTensor(shape: [1, bias.floats.count], floats: bias.floats))) == nil)
    #expect(ArticulationEnsemble(bytes: changed("0.extra", NeuralTensor(shape: [1], floats: [0]))) == nil)  // unread
    var notFinite = good
    notFinite[notFinite.count - 1] = 0x7C  // the last value becomes infinity
    notFinite[notFinite.count - 2] = 0x00
    #expect(ArticulationEnsemble(bytes: notFinite) == nil)
    // An old E2LS file is refused, saying how to convert it.
    #expect(throws: NeuralWeightsError.self) { try LipSyncWeights(decoding: Array("E2LS".utf8) + [2, 0, 0, 0]) }
    #expect(LipSyncWeights(bytes: good) != nil)
    // Members that read different inputs cannot be averaged.
    let member = try ArticulationNetwork(weights: file, member: 0)
    let other = ArticulationNetwork(
        bandCount: member.bandCount, extraInputs: 1, embeddingSize: member.embeddingSize,
        contextHops: member.contextHops, pastHops: member.pastHops, hidden1: member.hidden1,
        hidden2: member.hidden2, outputCount: member.outputCount, inputMean: Array(member.inputMean.dropLast()),
        inputScale: Array(member.inputScale.dropLast()),
        embedWeights: Array(member.embedWeights.dropLast(member.embeddingSize)), embedBias: member.embedBias,
        layer1Weights: member.layer1Weights, layer1Bias: member.layer1Bias, layer2Weights: member.layer2Weights,
        layer2Bias: member.layer2Bias, outputWeights: member.outputWeights, outputBias: member.outputBias)
    #expect(ArticulationEnsemble(members: [member, other]) == nil)
    #expect(ArticulationEnsemble(members: []) == nil)
    #expect(ArticulationEnsemble(members: [member]) != nil)
}

@Test func aNetworkOfThreeOrFourOutputsDecodesAndNoOther() throws {
    let file = try NeuralWeights(bytes: ShippedWeights.bytes)
    let shipped = try ArticulationNetwork(weights: file, member: 0)
    #expect(ArticulationNetwork.outputCounts.contains(shipped.outputCount))
    let h2 = shipped.hidden2
    // The same member with `outputs` outputs: the shipped output layer's first columns, or more made up.
    let w = shipped.outputWeights
    let n = shipped.outputCount
    func with(outputs: Int) throws -> [UInt8] {
        var weights: [Float] = []
        for i in 0..<h2 {
            for o in 0..<outputs { weights.append(o < n ? w[i * n + o] : 0.01 * Float(i % 7)) }
        }
        let bias: [Float] = (0..<outputs).map { o in o < n ? shipped.outputBias[o] : -2 }
        var g = try file.ints("0.geometry", count: 8).map(Int32.init)
        g[7] = Int32(outputs)
        let tensors = file.names.map { name -> (String, NeuralTensor) in
            switch name {
            case "members": (name, NeuralTensor(shape: [], ints: [1]))
            case "0.geometry": (name, NeuralTensor(shape: [8], ints: g))
            case "0.output.weights": (name, NeuralTensor(shape: [h2, outputs], floats: weights))
            case "0.output.bias": (name, NeuralTensor(shape: [outputs], floats: bias))
            default: (name, file.tensors[name]!)
            }
        }.filter { $0.0 == "members" || $0.0.hasPrefix("0.") }
        return NeuralWeights(kind: ArticulationEnsemble.kind, tensors: tensors).bytes
    }
    #expect(try #require(ArticulationEnsemble(bytes: try with(outputs: 3))).members[0].outputCount == 3)
    #expect(try #require(ArticulationEnsemble(bytes: try with(outputs: 4))).members[0].outputCount == 4)
    #expect(ArticulationEnsemble(bytes: try with(outputs: 2)) == nil)
    #expect(ArticulationEnsemble(bytes: try with(outputs: 5)) == nil)
    // Both run on speech as an engine's weights.
    let samples = try SpeechFixture.samples("speech_bilabial")
    for outputs in 3...4 {
        var stream = LipSyncStream(weights: try #require(LipSyncWeights(bytes: try with(outputs: outputs))))
        samples.withUnsafeBufferPointer { stream.append($0) }
        var frames: [Articulation] = []
        while let a = stream.nextFrame(flush: true) { frames.append(a) }
        #expect(frames.count > 10 && frames.allSatisfy { $0 == $0.clamped() }, "\(outputs) outputs")
        #expect(Set(frames.map(\.jawOpen)).count > 5, "\(outputs) outputs: the mouth moves")
    }
}

@Test func theLearnedTuckPullsThePressToTheRenderersTuckUnlessTheLipsAreShut() {
    func press(_ p: Float, tuck t: Float) -> Float { Articulation(learned: SIMD4(0.1, 0, p, t)).lipPress }
    #expect(press(0.3, tuck: 0) == 0.3 && press(0.9, tuck: 0) == 0.9)  // no tuck: the press as it is
    #expect(abs(press(0, tuck: 1) - Articulation.labiodentalPress) < 1e-6)  // f, v: the full tuck
    #expect(abs(press(0, tuck: 1 / Articulation.tuckGain) - Articulation.labiodentalPress) < 1e-6)  // calibrated
    #expect(press(0, tuck: 0.2 / Articulation.tuckGain) < press(0, tuck: 0.4 / Articulation.tuckGain))
    #expect(RigControls.tuck(press: press(0.02, tuck: 0.95)) > 0.99)
    #expect(press(0.9, tuck: 1) == 0.9 && press(0.55, tuck: 1) == 0.55)  // p, b, m: the closure wins
    #expect(RigControls.tuck(press: press(0.97, tuck: 0.8)) == 0)
    // Continuous in both: no step as the press crosses the closure's range.
    let presses = stride(from: Float(0), through: 1, by: 0.01).map { press($0, tuck: 1) }
    #expect(zip(presses, presses.dropFirst()).allSatisfy { abs($1 - $0) < 0.03 })
    let a = Articulation(learned: SIMD4(.nan, .infinity, -.infinity, .nan))
    #expect(a == a.clamped() && a.jawOpen == 0)
}

@Test func halfPrecisionValuesDecodeExactly() {
    #expect(NeuralWeights.half(0x3C00) == 1)
    #expect(NeuralWeights.half(0xC000) == -2)
    #expect(NeuralWeights.half(0x3555) == Float(0.333251953125))
    #expect(NeuralWeights.half(0x0001) == Float(5.9604644775390625e-8))
    #expect(NeuralWeights.half(0x7BFF) == 65504)
    #expect(NeuralWeights.half(0x8000) == 0 && NeuralWeights.half(0x8000).sign == .minus)
    #expect(NeuralWeights.half(0x7C00) == .infinity)
    #expect(NeuralWeights.half(0x7E00).isNaN)
}

@Test func learnedModelIsTheDefaultAndV1StaysSelectable() throws {
    #expect(LipSyncStream().model == .learned)
    #expect(LipSyncStream(model: .v1).model == .v1)
    let speech = try SpeechFixture.samples("speech_bilabial")
    let learned = LipSyncDriver.frames(speech, model: .learned)
    let v1 = LipSyncDriver.frames(speech, model: .v1)
    #expect(learned.count == v1.count)
    #expect(learned != v1)
    #expect(LipSyncDriver.frames(speech) == learned)
    #expect(LipSyncDriver.frames(speech, model: .v1) == v1)
}

@Test func nonSpeechKeepsTheLearnedMouthNearlyStill() {
    let seconds = 3
    let n = 16000 * seconds
    func pcm(_ f: (Double) -> Double) -> [Int16] {
        (0..<n).map { Int16((f(Double($0) / 16000) * 32767).rounded()) }
    }
    let tone = pcm { 0.25 * sin(2 * Double.pi * 440 * $0) }
    let chord = pcm { t in [261.6, 329.6, 392.0].reduce(0) { $0 + 0.08 * sin(2 * Double.pi * $1 * t) } }
    var clicks = [Int16](repeating: 0, count: n)
    for start in stride(from: 0, to: n - 20, by: 1600) {
        for i in 0..<20 { clicks[start + i] = Int16(16000 * exp(-Double(i) / 4)) }
    }
    for (name, audio) in [("tone", tone), ("chord", chord), ("clicks", clicks)] {
        let frames = LipSyncDriver.frames(audio, model: .learned)
        let opening = frames.map { $0.jawOpen * (1 - $0.lipPress) }
        // The first 200 ms of a sound that starts abruptly may look like a voice's onset, and its last 80 ms,
        // where it is cut off, like a voice stopping (a twitch of at most 0.2); in between the mouth stays shut.
        let edges = opening.prefix(5) + opening.suffix(2), middle = opening.dropFirst(5).dropLast(2)
        let mean = middle.reduce(0, +) / Float(middle.count)
        #expect(edges.allSatisfy { $0 < 0.2 }, "\(name) onset or cut opens the mouth to \(edges.max() ?? 0)")
        #expect(middle.allSatisfy { $0 < 0.1 }, "\(name) opens the mouth to \(middle.max() ?? 0)")
        #expect(mean < 0.02, "\(name) mean opening \(mean)")
    }
}
