/// One member's block of the weights file (`ArticulationEnsemble+Decoding.swift`), little-endian: UInt32 bandCount,
/// extraInputs (0 ... 2), embeddingSize, contextHops, pastHops, hidden1, hidden2, outputs (3), then IEEE
/// half-precision values: input mean, input scale (bandCount + extraInputs each), embed weights and bias, layer 1
/// weights and bias, layer 2 weights and bias, output weights and bias (weights input-major).
extension ArticulationNetwork {
    /// The network whose block starts at `offset` of `bytes`, and the offset just past it; nil when the block is
    /// cut short, its sizes are out of range or its window does not fit the stream's geometry (4 frame hops and
    /// 7 look-ahead hops), or a value is not finite.
    package static func parse(_ bytes: [UInt8], at offset: Int) -> (network: ArticulationNetwork, end: Int)? {
        let headerWords = 8
        guard offset >= 0, bytes.count - offset >= 4 * headerWords else { return nil }
        func word(_ k: Int) -> Int {
            let i = offset + 4 * k
            return Int(bytes[i]) | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2]) << 16 | Int(bytes[i + 3]) << 24
        }
        let (bands, extra, embedding) = (word(0), word(1), word(2))
        let (context, past, h1, h2) = (word(3), word(4), word(5), word(6))
        guard word(7) == outputCount, (0...maxExtraInputs).contains(extra),
            context == past + ArticulationHops.frameHops + ArticulationHops.aheadHops,
            [bands, embedding, past, h1, h2].allSatisfy({ (1...4096).contains($0) })
        else { return nil }
        let inputs = bands + extra
        let sizes = [
            inputs, inputs, inputs * embedding, embedding, context * embedding * h1, h1, h1 * h2, h2,
            h2 * outputCount, outputCount,
        ]
        var position = offset + 4 * headerWords
        guard bytes.count - position >= 2 * sizes.reduce(0, +) else { return nil }
        var arrays: [[Float]] = []
        for size in sizes {
            let base = position
            arrays.append((0..<size).map { k in
                let i = base + 2 * k
                return half(UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8)
            })
            position += 2 * size
        }
        guard (arrays.allSatisfy { $0.allSatisfy(\.isFinite) }) else { return nil }
        let network = ArticulationNetwork(
            bandCount: bands, extraInputs: extra, embeddingSize: embedding, contextHops: context, pastHops: past,
            hidden1: h1, hidden2: h2, inputMean: arrays[0], inputScale: arrays[1], embedWeights: arrays[2],
            embedBias: arrays[3], layer1Weights: arrays[4], layer1Bias: arrays[5], layer2Weights: arrays[6],
            layer2Bias: arrays[7], outputWeights: arrays[8], outputBias: arrays[9])
        return (network, position)
    }

    /// The Float value of IEEE 754 half-precision bits (every half value is exact in Float).
    static func half(_ bits: UInt16) -> Float {
        let sign = UInt32(bits >> 15) << 31
        let exponent = Int(bits >> 10 & 0x1F)
        let mantissa = UInt32(bits & 0x3FF)
        if exponent == 0 {
            // Zero or subnormal: mantissa · 2^-24.
            let magnitude = Float(mantissa) * (1 / Float(1 << 24))
            return sign != 0 ? -magnitude : magnitude
        }
        if exponent == 31 { return Float(bitPattern: sign | 0x7F80_0000 | mantissa << 13) }
        return Float(bitPattern: sign | UInt32(exponent - 15 + 127) << 23 | mantissa << 13)
    }
}
