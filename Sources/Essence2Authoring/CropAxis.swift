/// One axis of the character finder's crop sampler: for each of `size` crop indices, the weights of the source
/// indices it averages (k bilinear samples spread evenly over its footprint, each sample's two taps weighted
/// 1 - f and f, divided by k), as a first source index and a run of weights. Source indices outside 0..<limit
/// weigh nothing (outside the picture is transparent), so every run lies inside the picture.
struct CropAxis {
    /// The first source index of each crop index's run.
    var first: [Int]
    /// Each crop index's weights, for the source indices first, first + 1, ...
    var weights: [[Float]]
    /// The source indices any run touches (nil when none: the crop lies wholly outside the picture).
    var span: Range<Int>?

    init(origin: Double, side: Double, size: Int, samples k: Int, limit: Int) {
        let step = side / Double(size)
        first = [Int](repeating: 0, count: size)
        weights = [[Float]](repeating: [], count: size)
        var lowest = Int.max, highest = Int.min
        for o in 0..<size {
            var taps: [(Int, Double)] = []
            for s in 0..<k {
                let v = origin + (Double(o) + (Double(s) + 0.5) / Double(k)) * step - 0.5
                guard v.isFinite else { continue }
                let f = v.rounded(.down)
                let frac = v - f
                let i0 = Int(max(-2, min(Double(limit + 1), f)))
                if i0 >= 0 && i0 < limit && frac < 1 { taps.append((i0, (1 - frac) / Double(k))) }
                if i0 + 1 >= 0 && i0 + 1 < limit && frac > 0 { taps.append((i0 + 1, frac / Double(k))) }
            }
            guard let lo = taps.map(\.0).min(), let hi = taps.map(\.0).max() else { continue }
            var run = [Double](repeating: 0, count: hi - lo + 1)
            for (i, w) in taps { run[i - lo] += w }
            first[o] = lo
            weights[o] = run.map { Float($0) }
            lowest = min(lowest, lo)
            highest = max(highest, hi)
        }
        span = lowest <= highest ? lowest..<(highest + 1) : nil
    }
}
