/// An eye as the picture draws it, measured around the rig's eye point (the rig's radius is a hint for where
/// to look, never the extent): what the eye is (open, drawn closed, behind opaque glasses, or not drawn), the
/// pixels it covers (its white, iris, pupil, outline and lashes, with their anti-aliased edge), the top and
/// bottom of that extent in each column, the colour around it its lid takes, and the line a closed lid is
/// drawn with (the eye's own outline colour, or its colour that stands out most from the lid).
///
/// A blink slides the lid down each column from the eye's top (and a lower lid up from its bottom) in the lid's
/// colour, with a lid line at its edge; fully closed, all that is left is that line across the eye's lower part. Eyes drawn
/// closed and eyes behind opaque glasses get no lid.
///
/// Measured once, from the frame picture, in time and memory proportional to the searched window (at most an
/// eye distance square, and never more than the frame): flood fill and chessboard distance transforms, no
/// filter whose cost grows with the radius.
struct CharacterEye: Sendable {
    /// What the picture draws at the eye point.
    enum Drawing: String, Sendable, Equatable {
        /// An open eye: a lid closes over it.
        case open
        /// Drawn closed (a line or an arc): no lid.
        case closed
        /// Behind opaque glasses (a large uniform dark shape, wider than tall): no lid.
        case opaque
        /// Nothing drawn there (a hidden eye of a profile or three-quarter view): no lid.
        case hidden
    }

    let drawing: Drawing
    /// The box of the eye's extent (its covered pixels and room for the lid line), frame pixels.
    let box: PixelRect
    /// Per pixel of `box`, row by row: 1 where the eye is (the lid covers it), else 0.
    let coverage: [UInt8]
    /// Per column of `box`: the eye's top and bottom rows (frame y), `bottom < top` where the column holds none.
    let top: [Float]
    let bottom: [Float]
    /// The colour around the eye (the lid's) and the closed lid's line (B,G,R), and that line's width in pixels.
    let lid: SIMD3<Float>
    let line: SIMD3<Float>
    let lineWidth: Float

    /// The eye's measured extent: width and height in pixels (0 when it has none).
    var extent: (width: Float, height: Float) {
        var lo = Float.greatestFiniteMagnitude, hi = -Float.greatestFiniteMagnitude
        var columns = 0
        for (t, b) in zip(top, bottom) where b >= t {
            lo = min(lo, t)
            hi = max(hi, b)
            columns += 1
        }
        return columns == 0 ? (0, 0) : (Float(columns), hi - lo + 1)
    }

    /// Where the lid at frame point `q` takes its texture from: the picture mirrored about the eye's top in
    /// that column (the skin just above the eye, as a lid's own skin slides down), nil outside the eye.
    @inline(__always)
    func lidSource(at q: SIMD2<Float>) -> SIMD2<Float>? {
        let fx = (q.x - Float(box.x)).rounded()
        guard fx >= 0, fx < Float(box.width) else { return nil }
        let t = top[Int(fx)]
        guard bottom[Int(fx)] >= t else { return nil }
        return SIMD2(q.x, 2 * (t - 3) - q.y)  // three pixels clear of the eye's anti-aliased edge
    }

    /// Whether a blink draws a lid over this eye.
    var closes: Bool { drawing == .open }

    /// How much of the lid covers frame point `q` at closure `blink` (0 open ... 1 closed), and how much of the
    /// lid's line: (lid alpha, line alpha), both 0 outside the eye.
    @inline(__always)
    func lid(at q: SIMD2<Float>, blink: Float) -> (cover: Float, line: Float) {
        // The nearest pixel (a pixel's own position comes back from the head's motion a hair off its integer).
        let fx = (q.x - Float(box.x)).rounded(), fy = (q.y - Float(box.y)).rounded()
        guard fx >= 0, fy >= 0, fx < Float(box.width), fy < Float(box.height) else { return (0, 0) }  // false for NaN
        let cx = Int(fx), cy = Int(fy)
        let t = top[cx], b = bottom[cx]
        guard b >= t else { return (0, 0) }
        // The upper lid comes down from just above the eye's top and the lower one up from just below its
        // bottom; closed, they meet seven tenths of the way down.
        let meet = t + 0.7 * (b + 1 - t)
        let edge = (t - 0.5) + (meet - t + 0.5) * blink
        let lower = (b + 0.5) - (b + 0.5 - meet) * blink
        let inside = Float(coverage[cy * box.width + cx])
        let cover = inside * max(min(max(edge - q.y + 0.5, 0), 1), min(max(q.y - lower + 0.5, 0), 1))
        // The line lies just above the edge (inside the eye), and shows once the lid has started to move.
        let ramp = min(max((blink - 0.04) * 8, 0), 1)
        let centre = edge - 0.5 * lineWidth
        let line = ramp * min(max(0.5 * lineWidth + 0.5 - abs(q.y - centre), 0), 1)
        return (cover, line)
    }
}

extension CharacterEye {
    /// Measures the eye around `centre` in the frame `pixels` (B,G,R, `width` x `height`).
    /// - Parameters:
    ///   - radius: the rig's radius, a hint for the window searched (pixels).
    ///   - eyeDistance: the distance between the eyes (pixels): the window is at most half of it either side.
    ///   - lid: the colour around the eye as a first guess (the palette's); measured again around the extent.
    init(pixels: UnsafePointer<UInt8>, width: Int, height: Int, centre: SIMD2<Float>, radius: Float,
         eyeDistance: Float, lid guess: SIMD3<Float>) {
        let r = radius.isFinite ? max(radius, 1) : 1
        let ed = eyeDistance.isFinite ? max(eyeDistance, 4) : 4
        let halfX = Int(min(max(3.2 * r, 0.3 * ed), 0.5 * ed, Float(width)).rounded(.up)) + 2
        let halfY = Int(min(max(2.4 * r, 0.22 * ed), 0.45 * ed, Float(height)).rounded(.up)) + 2
        let cx = Int(centre.x.isFinite ? centre.x : 0), cy = Int(centre.y.isFinite ? centre.y : 0)
        let window = PixelRect(x: cx - halfX, y: cy - halfY, width: 2 * halfX + 1, height: 2 * halfY + 1)
            .clipped(width: width, height: height)
        let w = window.width, h = window.height
        func colour(_ x: Int, _ y: Int) -> SIMD3<Float> {
            let p = pixels + ((window.y + y) * width + window.x + x) * 3
            return SIMD3(Float(p[0]), Float(p[1]), Float(p[2]))
        }
        func none(_ lid: SIMD3<Float>, _ drawing: Drawing) -> (CharacterEye) {
            CharacterEye(drawing: drawing, box: PixelRect(x: 0, y: 0, width: 0, height: 0), coverage: [], top: [],
                         bottom: [], lid: lid, line: lid, lineWidth: 1)
        }
        guard w >= 3, h >= 3 else { self = none(guess, .hidden); return }

        // The skin around the eye: the commonest colour (in bins of 32 levels a channel) of the window outside an
        // ellipse of the hint, where the eye is not; the palette's guess when that is empty.
        var bins = [Int](repeating: 0, count: 512), sums = [SIMD3<Float>](repeating: .zero, count: 512)
        let ex = max(1.3 * r, 2), ey = max(1.3 * r, 2)
        let ox = Float(cx - window.x), oy = Float(cy - window.y)
        for y in 0..<h {
            for x in 0..<w {
                let dx = (Float(x) - ox) / ex, dy = (Float(y) - oy) / ey
                guard dx * dx + dy * dy > 1 else { continue }
                let c = colour(x, y)
                let bin = Int(c.x) / 32 * 64 + Int(c.y) / 32 * 8 + Int(c.z) / 32
                bins[bin] += 1
                sums[bin] += c
            }
        }
        let commonest = bins.indices.max { bins[$0] < bins[$1] } ?? 0
        let skin = bins[commonest] > 0 ? sums[commonest] / Float(bins[commonest]) : guess

        // What differs from that skin, and what of it is joined to the eye point.
        var differs = [Bool](repeating: false, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let d = colour(x, y) - skin
                differs[y * w + x] = abs(d.x) + abs(d.y) + abs(d.z) > 60
            }
        }
        let seedRadius = max(1.5, min(0.6 * r, 0.15 * ed))
        func seeds(_ map: [Bool]) -> [Int] {
            var list: [Int] = []
            let s = Int(seedRadius.rounded(.up))
            for y in max(0, Int(oy) - s)...min(h - 1, Int(oy) + s) {
                for x in max(0, Int(ox) - s)...min(w - 1, Int(ox) + s) where map[y * w + x] {
                    let dx = Float(x) - ox, dy = Float(y) - oy
                    if dx * dx + dy * dy <= seedRadius * seedRadius { list.append(y * w + x) }
                }
            }
            return list
        }
        var region = Self.flood(differs, width: w, height: h, from: seeds(differs))
        guard region.contains(true) else { self = none(skin, .hidden); return }
        if Self.isOpaque(region, width: w, height: h, eyeDistance: ed, colour: colour) { self = none(skin, .opaque); return }
        // Joined to the head's outline, hair or a brow by a line (it reaches the window's edge): cut thin bridges
        // with an opening (erode, flood, grow back) and keep that when it no longer reaches the edge.
        if Self.touchesEdge(region, width: w, height: h) {
            let e = max(1, Int((0.03 * ed).rounded()))
            let eroded = Self.distances(to: region.map { !$0 }, width: w, height: h).map { Int($0) > e }
            let core = Self.flood(eroded, width: w, height: h, from: seeds(eroded))
            if core.contains(true) {
                let grown = Self.distances(to: core, width: w, height: h)
                let opened = zip(grown, region).map { Int($0.0) <= e + 1 && $0.1 }
                if !Self.touchesEdge(opened, width: w, height: h) { region = opened }
            }
        }
        // Still joined, broadly (a glasses frame the eye's white touches along its length): leave out one of the
        // colours it reaches the edge in (the four commonest, in bins of 32 levels a channel), the one
        // that leaves the most of the eye without reaching the edge.
        if Self.touchesEdge(region, width: w, height: h) {
            var edgeBins: [Int: (count: Int, sum: SIMD3<Float>)] = [:]
            for i in 0..<(w * h) where region[i] && (i % w == 0 || i % w == w - 1 || i / w == 0 || i / w == h - 1) {
                let c = colour(i % w, i / w)
                let bin = Int(c.x) / 32 * 64 + Int(c.y) / 32 * 8 + Int(c.z) / 32
                let entry = edgeBins[bin] ?? (0, .zero)
                edgeBins[bin] = (entry.count + 1, entry.sum + c)
            }
            var best: [Bool]?
            var bestArea = 0
            for (_, entry) in edgeBins.sorted(by: { $0.value.count > $1.value.count }).prefix(4) {
                let leak = entry.sum / Float(entry.count)
                let apart = differs.indices.map { i in
                    guard differs[i] else { return false }
                    let c = colour(i % w, i / w) - leak
                    return abs(c.x) + abs(c.y) + abs(c.z) > 60
                }
                let kept = Self.flood(apart, width: w, height: h, from: seeds(apart))
                let area = kept.lazy.filter { $0 }.count
                if area > bestArea, !Self.touchesEdge(kept, width: w, height: h) {
                    best = kept
                    bestArea = area
                }
            }
            if let best { region = best }
        }
        if Self.touchesEdge(region, width: w, height: h) {
            // Still joined: keep the part within an ellipse of the hint around the point.
            let ax = max(2.4 * r, 2), ay = max(1.6 * r, 2)
            for y in 0..<h {
                for x in 0..<w where region[y * w + x] {
                    let dx = (Float(x) - ox) / ax, dy = (Float(y) - oy) / ay
                    if dx * dx + dy * dy > 1 { region[y * w + x] = false }
                }
            }
        }

        // The eye's inside counts too where the picture draws it in the skin's colour (a white eye outlined on a
        // white face): holes of the region that the window's edge does not reach.
        let outsideRegion = Self.flood(region.map { !$0 }, width: w, height: h,
                                       from: (0..<(w * h)).filter { i in
                                           !region[i] && (i % w == 0 || i % w == w - 1 || i / w == 0 || i / w == h - 1)
                                       })
        for i in 0..<(w * h) where !outsideRegion[i] { region[i] = true }

        // Its extent, what it looks like, and the colours around and in it.
        var lo = SIMD2<Int>(w, h), hi = SIMD2<Int>(-1, -1)
        var area = 0
        var members: [SIMD3<Float>] = []
        for y in 0..<h {
            for x in 0..<w where region[y * w + x] {
                lo = pointwiseMin(lo, SIMD2(x, y))
                hi = pointwiseMax(hi, SIMD2(x, y))
                area += 1
                members.append(colour(x, y))
            }
        }
        let boxW = Float(hi.x - lo.x + 1), boxH = Float(hi.y - lo.y + 1)
        guard area >= 4 else { self = none(skin, .hidden); return }
        let typical = Self.median(members)
        let uniform = Float(members.filter { c in let d = c - typical; return abs(d.x) + abs(d.y) + abs(d.z) < 60 }.count)
            / Float(area)
        let thickness = Float(area) / boxW
        // The skin just around the eye (2 to 5 pixels out), for the lid.
        let outside = Self.distances(to: region, width: w, height: h)
        var ring: [SIMD3<Float>] = []
        for i in 0..<(w * h) where outside[i] >= 2 && outside[i] <= 5 { ring.append(colour(i % w, i / w)) }
        let lid = ring.count >= 8 ? Self.median(ring) : skin
        if thickness <= max(2.5, 0.16 * boxW) || (uniform >= 0.85 && thickness <= 0.26 * boxW) {
            self = none(lid, .closed)
            return
        }

        if Self.isOpaque(region, width: w, height: h, eyeDistance: ed, colour: colour) { self = none(lid, .opaque); return }
        // The line: the eye's colours that stand out most from the lid (its outline, lashes or pupil).
        let lidLuma = Self.luma(lid)
        let ranked = members.sorted { abs(Self.luma($0) - lidLuma) > abs(Self.luma($1) - lidLuma) }
        line = Self.median(Array(ranked.prefix(max(1, ranked.count / 8))))
        // The line's weight: the picture's own, the run of line-coloured pixels up from the eye's lower edge in
        // the middle half of its columns (their median), at least 7 % of the eye's width and 4.5 % of the eye
        // distance (so that a closed eye keeps a visible line), at most 30 % of its height.
        var runs: [Int] = []
        for x in (lo.x + (hi.x - lo.x) / 4)...(lo.x + 3 * (hi.x - lo.x) / 4) {
            guard let bottomRow = (lo.y...hi.y).last(where: { region[$0 * w + x] }) else { continue }
            var run = 0
            var y = bottomRow
            while y >= lo.y, region[y * w + x] {
                let d = colour(x, y) - line
                guard abs(d.x) + abs(d.y) + abs(d.z) < 90 else { break }
                run += 1
                y -= 1
            }
            runs.append(run)
        }
        let own = runs.isEmpty ? 0 : Float(runs.sorted()[runs.count / 2])
        lineWidth = min(max(own, 0.07 * boxW, 0.045 * ed, 1.5), max(0.3 * boxH, 1.5))
        self.lid = lid
        drawing = .open

        // The covered pixels (the extent grown by a pixel for its anti-aliased edge) in a box with room for
        // the line.
        let pad = Int(lineWidth.rounded(.up)) + 2
        box = PixelRect(x: window.x + lo.x - pad, y: window.y + lo.y - pad, width: hi.x - lo.x + 1 + 2 * pad,
                        height: hi.y - lo.y + 1 + 2 * pad)
        var coverage = [UInt8](repeating: 0, count: box.width * box.height)
        var top = [Float](repeating: 1, count: box.width), bottom = [Float](repeating: 0, count: box.width)
        for by in 0..<box.height {
            for bx in 0..<box.width {
                let x = box.x + bx - window.x, y = box.y + by - window.y
                guard x >= 0, y >= 0, x < w, y < h, outside[y * w + x] <= 1 else { continue }
                coverage[by * box.width + bx] = 1
                let fy = Float(box.y + by)
                if bottom[bx] < top[bx] {
                    top[bx] = fy
                    bottom[bx] = fy
                } else {
                    top[bx] = min(top[bx], fy)
                    bottom[bx] = max(bottom[bx], fy)
                }
            }
        }
        // A lid edge without steps: each column's top and bottom averaged with those of the columns within 4 % of
        // the eye's width that hold the eye too, never inside the eye's own extent.
        var smoothTop = top, smoothBottom = bottom
        let reach = max(1, Int((0.04 * boxW).rounded()))
        for i in 0..<box.width where bottom[i] >= top[i] {
            var t: Float = 0, b: Float = 0, n: Float = 0
            for j in max(0, i - reach)...min(box.width - 1, i + reach) where bottom[j] >= top[j] {
                t += top[j]
                b += bottom[j]
                n += 1
            }
            smoothTop[i] = min(top[i], t / n)
            smoothBottom[i] = max(bottom[i], b / n)
        }
        self.coverage = coverage
        self.top = smoothTop
        self.bottom = smoothBottom
    }

    /// Whether `region` is an opaque lens: a large uniform dark shape (nine tenths within 60 levels of its median
    /// colour, luma under 90), wider than tall, at least 0.45 eye distances wide.
    static func isOpaque(_ region: [Bool], width w: Int, height h: Int, eyeDistance ed: Float,
                         colour: (Int, Int) -> SIMD3<Float>) -> Bool {
        var lo = SIMD2<Int>(w, h), hi = SIMD2<Int>(-1, -1)
        var members: [SIMD3<Float>] = []
        for i in 0..<(w * h) where region[i] {
            lo = pointwiseMin(lo, SIMD2(i % w, i / w))
            hi = pointwiseMax(hi, SIMD2(i % w, i / w))
            members.append(colour(i % w, i / w))
        }
        guard !members.isEmpty else { return false }
        let boxW = Float(hi.x - lo.x + 1), boxH = Float(hi.y - lo.y + 1)
        let typical = median(members)
        let near = members.filter { c in let d = c - typical; return abs(d.x) + abs(d.y) + abs(d.z) < 60 }.count
        return Float(near) >= 0.85 * Float(members.count) && luma(typical) < 90 && boxW >= 1.3 * boxH && boxW >= 0.45 * ed
    }

    /// The pixels of `map` joined (4-neighbours) to `seeds`.
    static func flood(_ map: [Bool], width w: Int, height h: Int, from seeds: [Int]) -> [Bool] {
        var joined = [Bool](repeating: false, count: w * h)
        var stack = seeds
        for s in seeds { joined[s] = true }
        while let i = stack.popLast() {
            let x = i % w, y = i / w
            if x > 0, map[i - 1], !joined[i - 1] { joined[i - 1] = true; stack.append(i - 1) }
            if x < w - 1, map[i + 1], !joined[i + 1] { joined[i + 1] = true; stack.append(i + 1) }
            if y > 0, map[i - w], !joined[i - w] { joined[i - w] = true; stack.append(i - w) }
            if y < h - 1, map[i + w], !joined[i + w] { joined[i + w] = true; stack.append(i + w) }
        }
        return joined
    }

    /// Per pixel, the chessboard distance to the nearest pixel set in `map` (0 on it), up to 255.
    static func distances(to map: [Bool], width w: Int, height h: Int) -> [UInt8] {
        var d = map.map { $0 ? UInt8(0) : UInt8(255) }
        d.withUnsafeMutableBufferPointer { ChessboardDistance.transform($0.baseAddress!, width: w, height: h) }
        return d
    }

    static func touchesEdge(_ map: [Bool], width w: Int, height h: Int) -> Bool {
        for x in 0..<w where map[x] || map[(h - 1) * w + x] { return true }
        for y in 0..<h where map[y * w] || map[y * w + w - 1] { return true }
        return false
    }

    static func luma(_ c: SIMD3<Float>) -> Float { 0.114 * c.x + 0.587 * c.y + 0.299 * c.z }

    /// The per-channel median of `colours` (not empty).
    static func median(_ colours: [SIMD3<Float>]) -> SIMD3<Float> {
        guard !colours.isEmpty else { return SIMD3(200, 200, 200) }
        func mid(_ values: [Float]) -> Float { values.sorted()[values.count / 2] }
        return SIMD3(mid(colours.map(\.x)), mid(colours.map(\.y)), mid(colours.map(\.z)))
    }
}
