import Essence2Runtime

/// NumPy-style broadcasting of two tensors of rank <= 4, as element strides over a rank-4 output.
struct TFLiteBroadcast: Sendable {
    var dims: [Int]
    var aStrides: [Int]
    var bStrides: [Int]

    /// Broadcast shape of `a` and `b`, or nil when they are incompatible or of rank above 4.
    static func shape(_ a: [Int], _ b: [Int]) -> [Int]? {
        let rank = Swift.max(a.count, b.count)
        guard rank <= 4 else { return a == b ? a : nil }
        var out = [Int](repeating: 1, count: rank)
        for i in 0..<rank {
            let da = i < rank - a.count ? 1 : a[i - (rank - a.count)]
            let db = i < rank - b.count ? 1 : b[i - (rank - b.count)]
            guard da == db || da == 1 || db == 1 else { return nil }
            out[i] = da == 1 ? db : da
        }
        return out
    }

    /// Strides for reading `a` and `b` (rank <= 4, compatible) at each index of their broadcast shape.
    init(_ a: [Int], _ b: [Int]) {
        func padded(_ s: [Int]) -> [Int] { [Int](repeating: 1, count: 4 - s.count) + s }
        func strides(_ s: [Int]) -> [Int] {
            var out = [0, 0, 0, 0]
            var step = 1
            for i in stride(from: 3, through: 0, by: -1) {
                out[i] = s[i] == 1 ? 0 : step
                step *= s[i]
            }
            return out
        }
        let pa = padded(a), pb = padded(b)
        dims = (0..<4).map { Swift.max(pa[$0], pb[$0]) }
        aStrides = strides(pa)
        bStrides = strides(pb)
    }
}
