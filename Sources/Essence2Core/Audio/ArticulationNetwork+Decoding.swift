/// The weights file format (written by tools/lipsync/export.py), little-endian:
/// "E2LS", then UInt32 version (1), bandCount, embeddingSize, contextHops, pastHops, hidden1, hidden2, outputs (3),
/// then IEEE half-precision values: band mean, band scale, embed weights and bias, layer 1 weights and bias,
/// layer 2 weights and bias, output weights and bias (weights input-major).
extension ArticulationNetwork {
    static let magic: [UInt8] = Array("E2LS".utf8)
    static let version: UInt32 = 1

    /// The network in `base64`, or nil unless its bytes hash to `sha256` (lower-case hex) and form a complete
    /// weights file whose window fits the stream's geometry (4 frame hops and 7 look-ahead hops).
    static func decode(base64: String, sha256: String) -> ArticulationNetwork? {
        guard let bytes = Base64.decode(base64), SHA256.hex(SHA256.hash(bytes)) == sha256 else { return nil }
        return ArticulationNetwork(bytes: bytes)
    }

    /// Parses a weights file; nil when the header or the size is wrong.
    init?(bytes: [UInt8]) {
        let headerWords = 8
        let headerSize = 4 + 4 * headerWords
        guard bytes.count >= headerSize, Array(bytes[0..<4]) == Self.magic else { return nil }
        func word(_ k: Int) -> Int {
            let i = 4 + 4 * k
            return Int(bytes[i]) | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2]) << 16 | Int(bytes[i + 3]) << 24
        }
        let (bands, embedding, context, past, h1, h2) = (word(1), word(2), word(3), word(4), word(5), word(6))
        guard word(0) == Int(Self.version), word(7) == Self.outputCount,
            context == past + ArticulationHops.frameHops + ArticulationHops.aheadHops,
            [bands, embedding, past, h1, h2].allSatisfy({ (1...4096).contains($0) })
        else { return nil }
        let sizes = [
            bands, bands, bands * embedding, embedding, context * embedding * h1, h1, h1 * h2, h2,
            h2 * Self.outputCount, Self.outputCount,
        ]
        guard bytes.count == headerSize + 2 * sizes.reduce(0, +) else { return nil }
        var arrays: [[Float]] = []
        var offset = headerSize
        for size in sizes {
            arrays.append((0..<size).map { k in
                let i = offset + 2 * k
                return Self.half(UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8)
            })
            offset += 2 * size
        }
        bandCount = bands
        embeddingSize = embedding
        contextHops = context
        pastHops = past
        hidden1 = h1
        hidden2 = h2
        bandMean = arrays[0]
        bandScale = arrays[1]
        embedWeights = arrays[2]
        embedBias = arrays[3]
        layer1Weights = arrays[4]
        layer1Bias = arrays[5]
        layer2Weights = arrays[6]
        layer2Bias = arrays[7]
        outputWeights = arrays[8]
        outputBias = arrays[9]
        guard (arrays.allSatisfy { $0.allSatisfy(\.isFinite) }) else { return nil }
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
