import CCharacterWeights

/// Why the character point finder could not run.
package enum CharacterPointFinderError: Error, Equatable, Sendable {
    /// The picture's buffers do not match its size (or the size is not positive).
    case badPicture(String)
    /// The weights file is not a valid E2CP file (what is wrong in words).
    case badWeights(String)
    /// Points given to place a rig from cannot be used (what is wrong in words).
    case badPoints(String)
}

/// The finder's network, read from an E2CP weights file (format: tools/character/export.py): 3x3 convolutions
/// (padding 1, batch normalisation folded in), dilated 3x3 convolutions, dense layers, ReLU where marked, and
/// heatmap heads (each point the soft-argmax of its own map, the other outputs their channels' means).
package struct CharacterNetwork: Sendable {
    package struct Layer: Sendable {
        package enum Kind: UInt32, Sendable {
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
        package var weights: [Float]
        package var bias: [Float]
    }

    /// The input's side in pixels (4 channels).
    package var size: Int
    package var outputCount: Int
    package var layers: [Layer]

    static let magic: [UInt8] = Array("E2CP".utf8)
    /// Version 1 has convolutions and dense layers; version 2 adds dilated convolutions and heatmap heads.
    static let versions: ClosedRange<UInt32> = 1...2
    /// The outputs the finder reads: 48 point values, 3 mouth logits, a brows logit, a character logit.
    static let expectedOutputs = 53
    /// The outputs the refinement pass reads: each of the five points' heatmap's (x, y).
    static let refinerOutputs = 10
    static let expectedSize = 96

    /// Reads and checks a weights file whose network gives `outputs` values (the finder's 53 by default, the
    /// refinement pass's 10); any inconsistency throws `badWeights`, never traps.
    package init(bytes: [UInt8], outputs expectedOutputs: Int = CharacterNetwork.expectedOutputs) throws {
        var reader = Reader(bytes: bytes)
        guard try reader.take(4) == Self.magic else { throw CharacterPointFinderError.badWeights("not an E2CP file") }
        let version = try reader.u32()
        guard Self.versions.contains(version) else {
            throw CharacterPointFinderError.badWeights("version \(version), not 1 or 2")
        }
        let size = Int(try reader.u32()), outputs = Int(try reader.u32()), count = Int(try reader.u32())
        guard size == Self.expectedSize else { throw CharacterPointFinderError.badWeights("input size \(size), not 96") }
        guard outputs == expectedOutputs else {
            throw CharacterPointFinderError.badWeights("\(outputs) outputs, not \(expectedOutputs)")
        }
        guard (1...64).contains(count) else { throw CharacterPointFinderError.badWeights("\(count) layers") }
        var layers: [Layer] = []
        var channels = 4, side = size, flat = false, headed = false
        for index in 0..<count {
            let rawKind = try reader.u32()
            guard let kind = Layer.Kind(rawValue: rawKind), version >= 2 || rawKind <= 2 else {
                throw CharacterPointFinderError.badWeights("layer \(index): unknown kind \(rawKind)")
            }
            guard !headed else { throw CharacterPointFinderError.badWeights("layer \(index) after the heads") }
            let a = Int(try reader.u32()), b = Int(try reader.u32()), c = Int(try reader.u32())
            let relu = try reader.u32()
            guard relu <= 1, (1...65_536).contains(a), (1...4096).contains(b) else {
                throw CharacterPointFinderError.badWeights("layer \(index): bad shape \(a) x \(b)")
            }
            let weightCount: Int
            switch kind {
            case .heads:
                guard !flat, a == channels, b == outputs, (1...a).contains(c), relu == 0, b == 2 * c + (a - c) else {
                    throw CharacterPointFinderError.badWeights("layer \(index): heads of \(a) channels, \(c) heatmaps "
                                                             + "do not give \(outputs) outputs")
                }
                let order = try reader.u32s(b).map(Int.init)
                guard Set(order) == Set(0..<b) else {
                    throw CharacterPointFinderError.badWeights("layer \(index): the heads' order is not a permutation")
                }
                layers.append(Layer(kind: kind, inputs: a, outputs: b, stride: 0, side: side, heatmaps: c,
                                    order: order, relu: false, weights: [], bias: []))
                channels = b
                flat = true
                headed = true
                continue
            case .dilatedConvolution:
                guard !flat, a == channels, (1...8).contains(c) else {
                    throw CharacterPointFinderError.badWeights("layer \(index): dilated convolution \(a) -> \(b) "
                                                             + "dilation \(c) does not follow \(channels) channels")
                }
                weightCount = b * a * 9
            case .convolution:
                guard !flat, a == channels, c == 1 || c == 2 else {
                    throw CharacterPointFinderError.badWeights("layer \(index): convolution \(a) -> \(b) stride \(c) "
                                                             + "does not follow \(channels) channels")
                }
                weightCount = b * a * 9
            case .dense:
                guard c == 0, a == (flat ? channels : channels * side * side) else {
                    throw CharacterPointFinderError.badWeights("layer \(index): dense layer of \(a) inputs does not fit")
                }
                weightCount = b * a
            }
            let weights = try reader.floats(weightCount), bias = try reader.floats(b)
            guard weights.allSatisfy(\.isFinite), bias.allSatisfy(\.isFinite) else {
                throw CharacterPointFinderError.badWeights("layer \(index): weights not finite")
            }
            switch kind {
            case .convolution:
                layers.append(Layer(kind: kind, inputs: a, outputs: b, stride: c, side: side, relu: relu == 1,
                                    weights: weights, bias: bias))
                side = (side - 1) / c + 1
            case .dilatedConvolution:
                layers.append(Layer(kind: kind, inputs: a, outputs: b, stride: 1, side: side, dilation: c,
                                    relu: relu == 1, weights: weights, bias: bias))
            case .dense, .heads:
                layers.append(Layer(kind: kind, inputs: a, outputs: b, stride: 0, side: side, relu: relu == 1,
                                    weights: weights, bias: bias))
                flat = true
            }
            channels = b
        }
        guard flat, channels == outputs else {
            throw CharacterPointFinderError.badWeights("the last layer gives \(channels) values, not \(outputs)")
        }
        guard reader.offset == bytes.count else {
            throw CharacterPointFinderError.badWeights("\(bytes.count - reader.offset) bytes after the last layer")
        }
        self.size = size
        self.outputCount = outputs
        self.layers = layers
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

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func take(_ n: Int) throws -> [UInt8] {
            guard n >= 0, n <= bytes.count - offset else { throw CharacterPointFinderError.badWeights("truncated") }
            defer { offset += n }
            return Array(bytes[offset..<offset + n])
        }

        mutating func u32() throws -> UInt32 {
            let b = try take(4)
            return UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
        }

        mutating func u32s(_ n: Int) throws -> [UInt32] {
            guard n >= 0, n <= (bytes.count - offset) / 4 else { throw CharacterPointFinderError.badWeights("truncated") }
            return try (0..<n).map { _ in try u32() }
        }

        mutating func floats(_ n: Int) throws -> [Float] {
            guard n >= 0, n <= (bytes.count - offset) / 4 else { throw CharacterPointFinderError.badWeights("truncated") }
            var out = [Float](repeating: 0, count: n)
            bytes.withUnsafeBufferPointer { src in
                out.withUnsafeMutableBufferPointer { dst in
                    var o = offset
                    for i in 0..<n {
                        let bits = UInt32(src[o]) | UInt32(src[o + 1]) << 8 | UInt32(src[o + 2]) << 16
                            | UInt32(src[o + 3]) << 24
                        dst[i] = Float(bitPattern: bits)
                        o += 4
                    }
                }
            }
            offset += n * 4
            return out
        }
    }

    /// Runs the network on `input` (4 x size x size, channel-major); returns `outputCount` values.
    package func run(_ input: [Float]) -> [Float] {
        var x = input
        for layer in layers {
            switch layer.kind {
            case .convolution, .dilatedConvolution: x = Self.convolve(x, layer)
            case .dense: x = Self.dense(x, layer)
            case .heads: x = Self.heads(x, layer)
            }
        }
        return x
    }

    private static func convolve(_ input: [Float], _ layer: Layer) -> [Float] {
        let side = layer.side, d = layer.dilation, padded = side + 2 * d, stride = layer.stride
        let outSide = (side - 1) / stride + 1
        let cin = layer.inputs, cout = layer.outputs
        // The input with a border of zeros, so that the inner loop needs no edge tests.
        var pad = [Float](repeating: 0, count: cin * padded * padded)
        input.withUnsafeBufferPointer { src in
            pad.withUnsafeMutableBufferPointer { dst in
                for c in 0..<cin {
                    for y in 0..<side {
                        let s = (c * side + y) * side, t = (c * padded + y + d) * padded + d
                        for x in 0..<side { dst[t + x] = src[s + x] }
                    }
                }
            }
        }
        var out = [Float](repeating: 0, count: cout * outSide * outSide)
        pad.withUnsafeBufferPointer { src in
            layer.weights.withUnsafeBufferPointer { w in
                out.withUnsafeMutableBufferPointer { dst in
                    for o in 0..<cout {
                        let plane = o * outSide * outSide
                        let b = layer.bias[o]
                        for i in 0..<(outSide * outSide) { dst[plane + i] = b }
                        for c in 0..<cin {
                            let wBase = (o * cin + c) * 9
                            let inPlane = c * padded * padded
                            for ky in 0..<3 {
                                for kx in 0..<3 {
                                    let wv = w[wBase + ky * 3 + kx]
                                    for oy in 0..<outSide {
                                        var s = inPlane + (oy * stride + ky * d) * padded + kx * d
                                        let row = plane + oy * outSide
                                        for ox in 0..<outSide {
                                            dst[row + ox] += wv * src[s]
                                            s += stride
                                        }
                                    }
                                }
                            }
                        }
                        if layer.relu {
                            for i in 0..<(outSide * outSide) where dst[plane + i] < 0 { dst[plane + i] = 0 }
                        }
                    }
                }
            }
        }
        return out
    }

    /// Heatmap heads: each of the first `heatmaps` channels' soft-argmax (x, y in units of the map's side, cell
    /// centres at (i + 0.5) / side), then the other channels' means, put in `order`.
    private static func heads(_ input: [Float], _ layer: Layer) -> [Float] {
        let side = layer.side, plane = side * side
        var raw: [Float] = []
        raw.reserveCapacity(layer.outputs)
        for c in 0..<layer.heatmaps {
            let values = input[(c * plane)..<((c + 1) * plane)]
            let top = values.max() ?? 0
            var total: Float = 0, x: Float = 0, y: Float = 0
            for (i, v) in values.enumerated() {
                let p = _exp(v - top)
                total += p
                x += p * (Float(i % side) + 0.5)
                y += p * (Float(i / side) + 0.5)
            }
            raw.append(x / total / Float(side))
            raw.append(y / total / Float(side))
        }
        for c in layer.heatmaps..<layer.inputs {
            raw.append(input[(c * plane)..<((c + 1) * plane)].reduce(0, +) / Float(plane))
        }
        return layer.order.map { raw[$0] }
    }

    private static func dense(_ input: [Float], _ layer: Layer) -> [Float] {
        let n = layer.inputs
        var out = [Float](repeating: 0, count: layer.outputs)
        input.withUnsafeBufferPointer { x in
            layer.weights.withUnsafeBufferPointer { w in
                for o in 0..<layer.outputs {
                    var sum: Float = 0
                    let base = o * n
                    for i in 0..<n { sum += w[base + i] * x[i] }
                    sum += layer.bias[o]
                    out[o] = layer.relu ? max(0, sum) : sum
                }
            }
        }
        return out
    }
}
