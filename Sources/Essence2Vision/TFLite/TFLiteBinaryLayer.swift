import Essence2Runtime

/// A prepared ADD or PRELU over two arena tensors, with a fast path for equal shapes and for a second operand
/// that repeats along the last axis (per-channel bias or alpha); anything else goes through `TFLiteBroadcast`.
struct TFLiteBinaryLayer: Sendable {
    var a: Int
    var b: Int
    var output: Int
    var count: Int
    /// PRELU (`a >= 0 ? a : a * b`) instead of ADD.
    var isPRelu: Bool
    /// Length of `b` when it repeats along the last axis of `a` (`count` when shapes are equal); 0 for general.
    var period: Int
    var broadcast: TFLiteBroadcast?
    var activation: NeuralActivation

    @inline(__always)
    private func combine(_ x: Float, _ y: Float) -> Float {
        isPRelu ? (x >= 0 ? x : x * y) : x + y
    }

    func run(_ arena: UnsafeMutablePointer<Float>) {
        let pa = arena + a, pb = arena + b, out = arena + output
        if period > 0 {
            if isPRelu {
                var i = 0
                while i < count {
                    let ra = pa + i, ro = out + i
                    for j in 0..<period {
                        let x = ra[j]
                        ro[j] = activation.apply(x >= 0 ? x : x * pb[j])
                    }
                    i &+= period
                }
            } else if period == count {
                for i in 0..<count { out[i] = activation.apply(pa[i] + pb[i]) }
            } else {
                var i = 0
                while i < count {
                    let ra = pa + i, ro = out + i
                    for j in 0..<period { ro[j] = activation.apply(ra[j] + pb[j]) }
                    i &+= period
                }
            }
            return
        }
        guard let broadcast else { return }
        let d = broadcast.dims, sa = broadcast.aStrides, sb = broadcast.bStrides
        var o = 0
        for i0 in 0..<d[0] {
            for i1 in 0..<d[1] {
                for i2 in 0..<d[2] {
                    let ia = i0 * sa[0] + i1 * sa[1] + i2 * sa[2], ib = i0 * sb[0] + i1 * sb[1] + i2 * sb[2]
                    for i3 in 0..<d[3] {
                        out[o] = activation.apply(combine(pa[ia + i3 * sa[3]], pb[ib + i3 * sb[3]]))
                        o += 1
                    }
                }
            }
        }
    }
}
