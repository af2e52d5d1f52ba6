import Essence2Runtime

/// A prepared PAD with zeros, on tensors of rank <= 4 (viewed as rank 4).
struct TFLitePadLayer: Sendable {
    var input: Int
    var output: Int
    var inDims: [Int]
    var outDims: [Int]
    var before: [Int]

    func run(_ arena: UnsafeMutablePointer<Float>) {
        let src = arena + input, dst = arena + output
        let total = outDims[0] * outDims[1] * outDims[2] * outDims[3]
        dst.update(repeating: 0, count: total)
        let d = inDims, o = outDims, b = before
        var s = src
        for i0 in 0..<d[0] {
            for i1 in 0..<d[1] {
                for i2 in 0..<d[2] {
                    let at = (((i0 + b[0]) * o[1] + i1 + b[1]) * o[2] + i2 + b[2]) * o[3] + b[3]
                    (dst + at).update(from: s, count: d[3])
                    s += d[3]
                }
            }
        }
    }
}
