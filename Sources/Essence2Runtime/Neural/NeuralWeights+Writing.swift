extension NeuralWeights {
    /// The file's bytes (the format: `NeuralWeights`); `NeuralWeights(bytes:)` reads them back equal. Float16
    /// tensors are written rounded to the nearest half (exact for values read from a file).
    package var bytes: [UInt8] {
        var out = Self.magic
        func put(_ v: UInt32) { out += [UInt8(v & 255), UInt8(v >> 8 & 255), UInt8(v >> 16 & 255), UInt8(v >> 24)] }
        func put(_ text: String) {
            put(UInt32(text.utf8.count))
            out += Array(text.utf8)
        }
        put(Self.version)
        put(kind)
        put(UInt32(names.count))
        for name in names {
            guard let tensor = tensors[name] else { continue }
            put(name)
            put(tensor.element.rawValue)
            put(UInt32(tensor.shape.count))
            for extent in tensor.shape { put(UInt32(extent)) }
            switch tensor.element {
            case .int32:
                for v in tensor.ints { put(UInt32(bitPattern: v)) }
            case .float32:
                for v in tensor.floats { put(v.bitPattern) }
            case .float16:
                for v in tensor.floats {
                    let bits = Float16(v).bitPattern
                    out += [UInt8(bits & 255), UInt8(bits >> 8)]
                }
            }
        }
        return out
    }
}
