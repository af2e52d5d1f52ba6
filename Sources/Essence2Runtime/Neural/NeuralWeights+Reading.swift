extension NeuralWeights {
    /// Reads and checks a weights file (the format: `NeuralWeights`); throws on any fault, never traps.
    package init(bytes: [UInt8]) throws(NeuralWeightsError) {
        var reader = Reader(bytes: bytes)
        guard bytes.count >= 4, Array(bytes[0..<4]) == Self.magic else {
            if bytes.starts(with: Array("E2LS".utf8)) || bytes.starts(with: Array("E2CP".utf8)) {
                throw NeuralWeightsError("an old weights file (\(String(decoding: bytes[0..<4], as: UTF8.self))): "
                    + "convert it with tools/convert_weights.py")
            }
            throw NeuralWeightsError("not an E2NW weights file (wrong magic bytes)")
        }
        reader.offset = 4
        let version = try reader.u32("version")
        guard version == Self.version else {
            throw NeuralWeightsError("E2NW version \(version), this library reads version \(Self.version)")
        }
        let kind = try reader.text("network kind")
        let count = try reader.count("tensor count", limit: Self.maxTensors)
        var tensors: [(String, NeuralTensor)] = []
        var seen = Set<String>()
        for index in 0..<count {
            let name = try reader.text("tensor \(index)'s name")
            guard seen.insert(name).inserted else { throw NeuralWeightsError("tensor '\(name)' appears twice") }
            let code = try reader.u32("tensor '\(name)''s element type")
            guard let element = NeuralTensor.Element(rawValue: code) else {
                throw NeuralWeightsError("tensor '\(name)': unknown element type \(code)")
            }
            let rank = try reader.count("tensor '\(name)''s rank", limit: Self.maxRank)
            var shape: [Int] = []
            var values = 1
            for _ in 0..<rank {
                let extent = try reader.count("tensor '\(name)''s extent", limit: Self.maxValues)
                guard extent >= 1 else { throw NeuralWeightsError("tensor '\(name)' has an extent of 0") }
                values = values.multipliedReportingOverflow(by: extent).partialValue
                guard values <= Self.maxValues else {
                    throw NeuralWeightsError("tensor '\(name)' has more than \(Self.maxValues) values")
                }
                shape.append(extent)
            }
            guard values <= (bytes.count - reader.offset) / element.size else {
                throw NeuralWeightsError("truncated: tensor '\(name)' needs \(values * element.size) bytes, "
                    + "\(bytes.count - reader.offset) are left")
            }
            let tensor: NeuralTensor
            switch element {
            case .int32:
                tensor = NeuralTensor(shape: shape, ints: reader.words(values).map { Int32(bitPattern: $0) })
            case .float32:
                tensor = NeuralTensor(shape: shape, floats: reader.words(values).map { Float(bitPattern: $0) })
            case .float16:
                tensor = NeuralTensor(shape: shape, floats: reader.halves(values).map(Self.half), element: .float16)
            }
            guard tensor.floats.allSatisfy(\.isFinite) else {
                throw NeuralWeightsError("tensor '\(name)' holds a value that is not finite")
            }
            tensors.append((name, tensor))
        }
        guard reader.offset == bytes.count else {
            throw NeuralWeightsError("\(bytes.count - reader.offset) bytes after the last tensor")
        }
        self.init(kind: kind, tensors: tensors)
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

    /// Little-endian reads that check what is left before each.
    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func u32(_ what: String) throws(NeuralWeightsError) -> UInt32 {
            guard bytes.count - offset >= 4 else { throw NeuralWeightsError("truncated in the \(what)") }
            return words(1)[0]
        }

        /// A UInt32 that counts something, at most `limit`.
        mutating func count(_ what: String, limit: Int) throws(NeuralWeightsError) -> Int {
            let value = try u32(what)
            guard value <= limit else { throw NeuralWeightsError("\(what) \(value) is over \(limit)") }
            return Int(value)
        }

        /// A length-prefixed UTF-8 name of 1 ... `maxNameLength` bytes.
        mutating func text(_ what: String) throws(NeuralWeightsError) -> String {
            let length = try count("\(what)'s length", limit: NeuralWeights.maxNameLength)
            guard length >= 1 else { throw NeuralWeightsError("\(what) is empty") }
            guard bytes.count - offset >= length else { throw NeuralWeightsError("truncated in the \(what)") }
            defer { offset += length }
            guard let text = String(validating: bytes[offset..<(offset + length)], as: UTF8.self) else {
                throw NeuralWeightsError("\(what) is not UTF-8")
            }
            return text
        }

        /// `n` UInt32 words; the caller has checked that they are there.
        mutating func words(_ n: Int) -> [UInt32] { values(n) }

        /// `n` UInt16 words; the caller has checked that they are there.
        mutating func halves(_ n: Int) -> [UInt16] { values(n) }

        /// `n` little-endian unsigned integers of `T`'s size.
        private mutating func values<T: FixedWidthInteger & UnsignedInteger>(_ n: Int) -> [T] {
            let size = MemoryLayout<T>.size
            var out = [T](repeating: 0, count: n)
            bytes.withUnsafeBufferPointer { src in
                var o = offset
                for i in 0..<n {
                    var value: T = 0
                    for k in 0..<size { value |= T(src[o + k]) << (8 * k) }
                    out[i] = value
                    o += size
                }
            }
            offset += size * n
            return out
        }
    }
}
