import Essence2Runtime

/// A prepared CONCATENATION: for each of `outer` slices, copies each input's contiguous chunk in turn.
struct TFLiteConcatLayer: Sendable {
    /// Arena offset and chunk length (axis extent * inner size) of each input.
    var parts: [(offset: Int, chunk: Int)]
    var output: Int
    var outer: Int
    var count: Int
    var activation: NeuralActivation

    func run(_ arena: UnsafeMutablePointer<Float>) {
        var dst = arena + output
        for o in 0..<outer {
            for part in parts {
                dst.update(from: arena + part.offset + o * part.chunk, count: part.chunk)
                dst += part.chunk
            }
        }
        if !activation.isNone {
            let out = arena + output
            for i in 0..<count { out[i] = activation.apply(out[i]) }
        }
    }
}
