import CCharacterWeights
import Essence2Runtime

/// Why the character point finder could not run.
package enum CharacterPointFinderError: Error, Equatable, Sendable {
    /// The picture's buffers do not match its size (or the size is not positive).
    case badPicture(String)
    /// The weights file is not a valid character network weights file (what is wrong in words).
    case badWeights(String)
    /// Points given to place a rig from cannot be used (what is wrong in words).
    case badPoints(String)
}

/// The finder's network, read from an E2NW weights file (`NeuralWeights`) of kind `CharacterNetwork.kind`
/// (written by tools/character/export.py): 3x3 convolutions (padding 1, batch normalisation folded in), dilated 3x3
/// convolutions, dense layers, ReLU where marked, and heatmap heads (each point the soft-argmax of its own map, the
/// other outputs their channels' means). The convolutions and dense layers run on the runtime's kernels
/// (`NeuralConvolution` in PyTorch's field order, so each output adds its terms in the trained network's order, and
/// `NeuralDense`), the feature maps NHWC between them.
///
/// The file's tensors: `size` (int32, the input's side: 96), `outputs` (int32), `layers` (int32, 1 ... 64), then per
/// layer i, names prefixed "i.": `layer` (int32 [5]: kind, a, b, c, relu), and for a convolution (kind 1: a input
/// channels, b output channels, c stride 1 or 2; kind 3: dilation c in 1 ... 8, stride 1, padding c) `weights`
/// (float32 [b, a, 3, 3]) and `bias` [b]; for a dense layer (kind 2: a inputs, b outputs, c 0; after a convolution
/// it reads the maps flattened channel-major) `weights` [b, a] and `bias` [b]; for the heads (kind 4, the last
/// layer: a channels, b outputs, c heatmaps, b = 2c + (a - c)) `order` (int32 [b]: output i is value order[i] of the
/// heatmaps' (x, y) pairs, then the other channels' means).
package struct CharacterNetwork: Sendable {
    package struct Layer: Sendable {
        package enum Kind: Int, Sendable {
            case convolution = 1
            case dense = 2
            case dilatedConvolution = 3
            case heads = 4
        }
        package var kind: Kind
        /// Convolution: input channels, output channels, stride, input side; dense: inputs, outputs; heads:
        /// channels, outputs, input side.
        package var inputs: Int, outputs: Int, stride: Int, side: Int
        /// Dilated convolution: the spacing of the kernel's taps (and its padding); otherwise 1.
        package var dilation: Int = 1
        /// Heads: the number of heatmap channels (the first ones), and output i = value order[i] of [the heatmaps'
        /// (x, y) pairs, the other channels' means].
        package var heatmaps: Int = 0
        package var order: [Int] = []
        package var relu: Bool
        /// Convolutions: the packed kernel.
        package var convolution: NeuralConvolution?
        /// Dense layers: weights input-major (`NeuralDense`'s layout) and bias.
        package var weights: [Float] = []
        package var bias: [Float] = []
    }

    /// The input's side in pixels (4 channels).
    package var size: Int
    package var outputCount: Int
    package var layers: [Layer]

    /// The network kind of a character point finder's weights file (the finder's and the refinement pass's).
    static let kind = "essence2-character-points"
    /// The outputs the finder reads: 48 point values, 3 mouth logits, a brows logit, a character logit.
    static let expectedOutputs = 53
    /// The outputs the refinement pass reads: each of the five points' heatmap's (x, y).
    static let refinerOutputs = 10
    static let expectedSize = 96

    /// Reads and checks a weights file whose network gives `outputs` values (the finder's 53 by default, the
    /// refinement pass's 10); any inconsistency throws `badWeights`, never traps.
    package init(bytes: [UInt8], outputs expectedOutputs: Int = CharacterNetwork.expectedOutputs) throws {
        do {
            try self.init(weights: NeuralWeights(bytes: bytes), outputs: expectedOutputs)
        } catch let error as NeuralWeightsError {
            throw CharacterPointFinderError.badWeights(error.reason)
        }
    }

    /// The network in `weights` (see `init(bytes:outputs:)`).
    package init(weights: NeuralWeights, outputs expectedOutputs: Int = CharacterNetwork.expectedOutputs) throws {
        func bad(_ reason: String) -> CharacterPointFinderError { .badWeights(reason) }
        do {
            try weights.expect(kind: Self.kind)
            let size = try weights.int("size"), outputs = try weights.int("outputs"), count = try weights.int("layers")
            guard size == Self.expectedSize else { throw bad("input size \(size), not 96") }
            guard outputs == expectedOutputs else { throw bad("\(outputs) outputs, not \(expectedOutputs)") }
            guard (1...64).contains(count) else { throw bad("\(count) layers") }
            var layers: [Layer] = []
            var channels = 4, side = size, flat = false, headed = false, tensors = 3
            for index in 0..<count {
                let p = "\(index)."
                let header = try weights.ints(p + "layer", count: 5)
                let (rawKind, a, b, c, relu) = (header[0], header[1], header[2], header[3], header[4])
                guard let kind = Layer.Kind(rawValue: rawKind) else { throw bad("layer \(index): unknown kind \(rawKind)") }
                guard !headed else { throw bad("layer \(index) after the heads") }
                guard (0...1).contains(relu), (1...65_536).contains(a), (1...4096).contains(b) else {
                    throw bad("layer \(index): bad shape \(a) x \(b)")
                }
                switch kind {
                case .heads:
                    guard !flat, a == channels, b == outputs, (1...a).contains(c), relu == 0, b == 2 * c + (a - c) else {
                        throw bad("layer \(index): heads of \(a) channels, \(c) heatmaps do not give \(outputs) outputs")
                    }
                    let order = try weights.ints(p + "order", count: b)
                    guard Set(order) == Set(0..<b) else { throw bad("layer \(index): the heads' order is not a permutation") }
                    layers.append(Layer(kind: kind, inputs: a, outputs: b, stride: 0, side: side, heatmaps: c,
                                        order: order, relu: false))
                    tensors += 2
                    channels = b
                    flat = true
                    headed = true
                case .convolution, .dilatedConvolution:
                    let dilated = kind == .dilatedConvolution
                    guard !flat, a == channels, dilated ? (1...8).contains(c) : (c == 1 || c == 2) else {
                        throw bad("layer \(index): convolution \(a) -> \(b) \(dilated ? "dilation" : "stride") \(c) "
                            + "does not follow \(channels) channels")
                    }
                    let filter = try weights.floats(p + "weights", shape: [b, a, 3, 3])
                    let bias = try weights.floats(p + "bias", shape: [b])
                    let (stride, dilation) = dilated ? (1, c) : (c, 1)
                    guard let window = NeuralWindow(input: side, kernel: 3, stride: stride, dilation: dilation,
                                                    padding: dilation) else {
                        throw bad("layer \(index): a 3x3 window does not fit a side of \(side)")
                    }
                    let convolution = NeuralConvolution(
                        inChannels: a, outChannels: b, rows: window, columns: window, order: .channelsThenTaps,
                        filter: filter, bias: bias, activation: relu == 1 ? .relu : .none)
                    layers.append(Layer(kind: kind, inputs: a, outputs: b, stride: stride, side: side, dilation: dilation,
                                        relu: relu == 1, convolution: convolution))
                    tensors += 3
                    side = window.output
                    channels = b
                case .dense:
                    guard c == 0, a == (flat ? channels : channels * side * side) else {
                        throw bad("layer \(index): dense layer of \(a) inputs does not fit")
                    }
                    let rows = try weights.floats(p + "weights", shape: [b, a])
                    var inputMajor = [Float](repeating: 0, count: a * b)
                    for o in 0..<b {
                        for i in 0..<a { inputMajor[i * b + o] = rows[o * a + i] }
                    }
                    layers.append(Layer(kind: kind, inputs: a, outputs: b, stride: 0, side: side, relu: relu == 1,
                                        weights: inputMajor, bias: try weights.floats(p + "bias", shape: [b])))
                    tensors += 3
                    channels = b
                    flat = true
                }
            }
            guard flat, channels == outputs else { throw bad("the last layer gives \(channels) values, not \(outputs)") }
            guard weights.names.count == tensors else { throw bad("the weights file holds tensors no layer reads") }
            self.size = size
            self.outputCount = outputs
            self.layers = layers
        } catch let error as NeuralWeightsError {
            throw bad(error.reason)
        }
    }

    /// The embedded weights file's bytes (Sources/CCharacterWeights).
    static var embeddedBytes: [UInt8] {
        [UInt8](UnsafeBufferPointer(start: e2_character_weights(), count: Int(e2_character_weights_size())))
    }

    /// The embedded refinement pass's weights file's bytes (Sources/CCharacterWeights, tools/character/refine.py).
    static var embeddedRefinerBytes: [UInt8] {
        [UInt8](UnsafeBufferPointer(start: e2_character_refine(), count: Int(e2_character_refine_size())))
    }

    /// The embedded weights, read once.
    package static let embedded = read(embeddedBytes, outputs: expectedOutputs)

    /// The embedded refinement pass's weights, read once.
    package static let embeddedRefiner = read(embeddedRefinerBytes, outputs: refinerOutputs)

    private static func read(_ bytes: [UInt8], outputs: Int) -> Result<CharacterNetwork, CharacterPointFinderError> {
        do {
            return .success(try CharacterNetwork(bytes: bytes, outputs: outputs))
        } catch let error as CharacterPointFinderError {
            return .failure(error)
        } catch {
            return .failure(.badWeights("\(error)"))
        }
    }
}
