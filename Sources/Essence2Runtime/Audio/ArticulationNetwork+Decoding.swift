/// One member's tensors in the weights file (`ArticulationEnsemble+Decoding.swift`), each name prefixed with the
/// member's index and a dot ("0.", "1.", ...): `geometry` (int32 [8]: bandCount, extraInputs (0 ... 2),
/// embeddingSize, contextHops, pastHops, hidden1, hidden2, outputs (3, or 4 with the lip tuck)), then half-precision
/// arrays: `inputMean` and `inputScale` [inputs], `embed.weights` [inputs, embeddingSize] and `embed.bias`,
/// `layer1.weights` [contextHops * embeddingSize, hidden1] and `layer1.bias`, `layer2.weights` [hidden1, hidden2] and
/// `layer2.bias`, `output.weights` [hidden2, outputs] and `output.bias` (weights input-major, as `NeuralDense` reads
/// them).
extension ArticulationNetwork {
    /// The names of one member's arrays, in file order.
    static let arrayNames = [
        "inputMean", "inputScale", "embed.weights", "embed.bias", "layer1.weights", "layer1.bias", "layer2.weights",
        "layer2.bias", "output.weights", "output.bias",
    ]

    /// Member `index` of `weights`; throws when a tensor is missing or shaped otherwise, the sizes are out of range
    /// or the window does not fit the stream's geometry (4 frame hops and 7 look-ahead hops).
    init(weights: NeuralWeights, member index: Int) throws(NeuralWeightsError) {
        let prefix = "\(index)."
        let g = try weights.ints(prefix + "geometry", count: 8)
        let (bands, extra, embedding, context, past) = (g[0], g[1], g[2], g[3], g[4])
        let (h1, h2, outputs) = (g[5], g[6], g[7])
        guard Self.outputCounts.contains(outputs), (0...Self.maxExtraInputs).contains(extra),
            context == past + ArticulationHops.frameHops + ArticulationHops.aheadHops,
            [bands, embedding, past, h1, h2].allSatisfy({ (1...4096).contains($0) })
        else { throw NeuralWeightsError("lip-sync member \(index): geometry \(g) out of range") }
        let inputs = bands + extra
        let shapes = [
            [inputs], [inputs], [inputs, embedding], [embedding], [context * embedding, h1], [h1], [h1, h2], [h2],
            [h2, outputs], [outputs],
        ]
        var arrays: [[Float]] = []
        for (name, shape) in zip(Self.arrayNames, shapes) { arrays.append(try weights.floats(prefix + name, shape: shape)) }
        self.init(
            bandCount: bands, extraInputs: extra, embeddingSize: embedding, contextHops: context, pastHops: past,
            hidden1: h1, hidden2: h2, outputCount: outputs, inputMean: arrays[0], inputScale: arrays[1],
            embedWeights: arrays[2], embedBias: arrays[3], layer1Weights: arrays[4], layer1Bias: arrays[5], layer2Weights: arrays[6],
            layer2Bias: arrays[7], outputWeights: arrays[8], outputBias: arrays[9])
    }
}
