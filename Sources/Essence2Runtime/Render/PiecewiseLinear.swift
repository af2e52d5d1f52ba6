/// A function of one variable given by sample points, linear in between and constant beyond the ends.
struct PiecewiseLinear {
    private(set) var xs: [Float]
    private(set) var ys: [Float]

    /// Builds the function from points in any order; points with equal x are averaged.
    init(_ points: [SIMD2<Float>]) {
        let sorted = points.filter { $0.x.isFinite && $0.y.isFinite }.sorted { $0.x < $1.x }
        var xs: [Float] = [], ys: [Float] = [], counts: [Float] = []
        for p in sorted {
            if let last = xs.last, p.x - last < 1e-4 {
                let n = counts[counts.count - 1]
                ys[ys.count - 1] = (ys[ys.count - 1] * n + p.y) / (n + 1)
                counts[counts.count - 1] = n + 1
            } else {
                xs.append(p.x); ys.append(p.y); counts.append(1)
            }
        }
        if xs.isEmpty { xs = [0]; ys = [0] }
        self.xs = xs
        self.ys = ys
    }

    var lowerBound: Float { xs[0] }
    var upperBound: Float { xs[xs.count - 1] }

    func callAsFunction(_ x: Float) -> Float {
        if x <= xs[0] { return ys[0] }
        let n = xs.count
        if x >= xs[n - 1] { return ys[n - 1] }
        var lo = 0, hi = n - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if xs[mid] <= x { lo = mid } else { hi = mid }
        }
        let t = (x - xs[lo]) / (xs[hi] - xs[lo])
        return ys[lo] + (ys[hi] - ys[lo]) * t
    }
}
