import Glibc

/// The synthesized inside of the mouth: colours from the portrait; upper teeth and gums fixed to the skull,
/// lower teeth carried by the jaw, a tongue whose tip can rise to the teeth, and per frame the lip opening
/// tabulated along the mouth's x axis.
///
/// All positions are in the mouth frame of the portrait (x from the subject's right corner to the left one,
/// y down, pixels), sampled on a fixed grid of `step` pixels over three half-widths around the centre.
final class MouthInterior {
    let palette: MouthPalette
    let step: Float
    let gridStart: Float
    let count: Int
    /// Upper teeth: incisal edge (y), where the gum meets them (y, dipping between teeth), their shading
    /// (lateral fall-off, each tooth's convex face, its own small variation) and how close the column is to
    /// the gap between two teeth (1 at the gap, 0 a few pixels away).
    let teethEdge: UnsafeMutablePointer<Float>
    let gumEdge: UnsafeMutablePointer<Float>
    let teethShade: UnsafeMutablePointer<Float>
    let teethGap: UnsafeMutablePointer<Float>
    /// Lower teeth: how far their incisal edge lies below the line their visible band starts from (hidden
    /// beyond the canines, rounded at each tooth's corners), shading and gaps as above.
    let lowerEdge: UnsafeMutablePointer<Float>
    let lowerShade: UnsafeMutablePointer<Float>
    let lowerGap: UnsafeMutablePointer<Float>
    /// Darkness of the seam where the lips meet, for portraits photographed with the mouth open (else 0).
    let seam: UnsafeMutablePointer<Float>
    /// Opening of a closed-mouthed portrait's inner lip outlines (landmark noise, under half a pixel) that
    /// still counts as closed; 0 for a portrait photographed open (the rig closes those lips itself).
    let slack: UnsafeMutablePointer<Float>
    /// Per frame: upper and lower inner lip y (no opening where upper >= lower).
    let upper: UnsafeMutablePointer<Float>
    let lower: UnsafeMutablePointer<Float>
    let teethLength: Float
    let mouthHalfWidth: Float
    /// Centre of the teeth along the mouth.
    let teethMid: Float

    init(mouth m: MouthGeometry, palette: MouthPalette, closeUpper: Float) {
        self.palette = palette
        let hw = m.halfWidth
        mouthHalfWidth = hw
        step = max(0.125, min(0.5, hw / 140))
        gridStart = -1.6 * hw
        count = Int(3.2 * hw / step) + 2
        teethEdge = .allocate(capacity: count)
        gumEdge = .allocate(capacity: count)
        teethShade = .allocate(capacity: count)
        teethGap = .allocate(capacity: count)
        lowerEdge = .allocate(capacity: count)
        lowerShade = .allocate(capacity: count)
        lowerGap = .allocate(capacity: count)
        seam = .allocate(capacity: count)
        slack = .allocate(capacity: count)
        upper = .allocate(capacity: count)
        lower = .allocate(capacity: count)
        upper.initialize(repeating: 1e9, count: count)
        lower.initialize(repeating: -1e9, count: count)
        let tl = 0.15 * hw
        teethLength = tl
        let innerHalf = max((m.upperInner.upperBound - m.upperInner.lowerBound) / 2, 1)
        let innerMid = (m.upperInner.upperBound + m.upperInner.lowerBound) / 2
        teethMid = innerMid
        // Tooth boundaries (fractions of the inner half-width from the midline): upper incisors, canines,
        // premolars; the lower incisors are narrower.
        let upperBounds: [Float] = [0, 0.2, 0.37, 0.52, 0.65, 0.77, 0.88, 1]
        let lowerBounds: [Float] = [0, 0.14, 0.28, 0.43, 0.57, 0.7, 0.84, 1]
        let lineWidth = max(0.35, 0.012 * hw)
        let seamScale = max(1, 0.1 * hw)
        /// Where column `s` (signed fraction of the half-width) falls among `bounds`: the tooth's number,
        /// the position across it (0...1) and the distance to its nearer edge (pixels).
        func tooth(_ s: Float, _ bounds: [Float]) -> (index: Int, within: Float, nearest: Float) {
            let a = abs(s)
            var j = 0
            while j < bounds.count - 2, a > bounds[j + 1] { j += 1 }
            let lo = bounds[j], hi = bounds[j + 1]
            return (s < 0 ? -1 - j : j, clamp01((a - lo) / (hi - lo)), min(a - lo, hi - a) * innerHalf)
        }
        /// A small fixed variation per tooth, -1 ... 1.
        func variation(_ index: Int, _ stream: UInt64) -> Float {
            Float(SeededNoise.unit(0xE55E_7EE7, stream, UInt64(bitPattern: Int64(index)))) * 2 - 1
        }
        for k in 0..<count {
            let u = gridStart + Float(k) * step
            let s = (u - innerMid) / innerHalf
            let root = m.upperInner(u) + closeUpper * m.photographedGap(u)
            let lateral = max(0.25, 1 - 0.6 * s * s)

            let up = tooth(s, upperBounds)
            let corner = 1 - smoothstep(0, 3 * lineWidth, up.nearest)
            // Each tooth a little longer or shorter, its incisal corners rounded.
            let length = tl * (1 - 0.4 * s * s) * (1 + 0.05 * variation(up.index, 31))
            teethEdge[k] = root + length - 0.16 * tl * corner * corner
            gumEdge[k] = root - 0.1 * tl + 0.25 * tl * corner
            teethShade[k] = lateral * (0.84 + 0.16 * sinf(Float.pi * up.within)) * (1 + 0.035 * variation(up.index, 32))
            teethGap[k] = 1 - smoothstep(0, 1.5 * lineWidth, up.nearest)

            let low = tooth(s, lowerBounds)
            let lowCorner = 1 - smoothstep(0, 2.5 * lineWidth, low.nearest)
            // Only the front teeth show: the band ends towards the canines.
            lowerEdge[k] = 0.6 * tl * smoothstep(0.4, 0.75, abs(s)) + 0.12 * tl * lowCorner * lowCorner
            lowerShade[k] = lateral * (0.86 + 0.14 * sinf(Float.pi * low.within)) * (1 + 0.035 * variation(low.index, 33))
            lowerGap[k] = 1 - smoothstep(0, 1.5 * lineWidth, low.nearest)

            seam[k] = 0.45 * clamp01(m.photographedGap(u) / seamScale)
            slack[k] = m.closedSlack(u)
        }
    }

    deinit {
        teethEdge.deallocate(); gumEdge.deallocate(); teethShade.deallocate(); teethGap.deallocate()
        lowerEdge.deallocate(); lowerShade.deallocate(); lowerGap.deallocate()
        seam.deallocate(); slack.deallocate(); upper.deallocate(); lower.deallocate()
    }

    /// Tabulates the lip opening from the inner lip outlines (mouth frame, corner to corner). `rounded` (0...1,
    /// `FaceRig.roundedShare`) makes the opening that much an ellipse: on rounded lips only the few middle
    /// points of the outlines are apart, and their polyline would be a diamond.
    func setOpening(upper up: UnsafePointer<SIMD2<Float>>, lower lo: UnsafePointer<SIMD2<Float>>, points n: Int,
                    rounded: Float = 0) {
        upper.update(repeating: 1e9, count: count)
        lower.update(repeating: -1e9, count: count)
        MouthInterior.rasterize(up, n, into: upper, gridStart: gridStart, step: step, count: count)
        MouthInterior.rasterize(lo, n, into: lower, gridStart: gridStart, step: step, count: count)
        for k in 0..<count { lower[k] -= slack[k] }
        if rounded > 0 { roundOpening(sanitized(rounded, 0, 1)) }
    }

    /// Blends the opening towards an ellipse: as wide as the part where the lips are apart (a little narrower,
    /// as the polyline's ends slope out to the first closed points), around the line between its two ends, its
    /// upper and lower halves as far from that line at the widest point as the lips are there.
    private func roundOpening(_ share: Float) {
        var kc = -1, widest: Float = 0
        for k in 0..<count where upper[k] < 1e8 && lower[k] > -1e8 && lower[k] - upper[k] > widest {
            widest = lower[k] - upper[k]; kc = k
        }
        guard kc >= 0, widest > 0.5 else { return }
        var kl = kc, kr = kc
        while kl > 0, upper[kl - 1] < 1e8, lower[kl - 1] - upper[kl - 1] > 0 { kl -= 1 }
        while kr < count - 1, upper[kr + 1] < 1e8, lower[kr + 1] - upper[kr + 1] > 0 { kr += 1 }
        let a = max(0, kl - 1), b = min(count - 1, kr + 1)
        let midA = (upper[a] + lower[a]) / 2, midB = (upper[b] + lower[b]) / 2
        func line(_ k: Int) -> Float { b > a ? midA + (midB - midA) * Float(k - a) / Float(b - a) : midA }
        let up = max(0, line(kc) - upper[kc]), down = max(0, lower[kc] - line(kc))
        let centre = Float(kl + kr) / 2
        let half = max(1, 0.8 * Float(kr - kl + 2) / 2)
        for k in a...b {
            let t = (Float(k) - centre) / half
            let e = max(0, 1 - t * t).squareRoot()
            upper[k] += (line(k) - up * e - upper[k]) * share
            lower[k] += (line(k) + down * e - lower[k]) * share
        }
    }

    private static func rasterize(_ p: UnsafePointer<SIMD2<Float>>, _ n: Int, into t: UnsafeMutablePointer<Float>,
                                  gridStart: Float, step: Float, count: Int) {
        for i in 0..<(n - 1) {
            var a = p[i], b = p[i + 1]
            if a.x > b.x { swap(&a, &b) }
            guard a.x.isFinite, b.x.isFinite, a.y.isFinite, b.y.isFinite else { continue }
            let k0 = max(0, Int(((a.x - gridStart) / step).rounded(.up)))
            let k1 = min(count - 1, Int(((b.x - gridStart) / step).rounded(.down)))
            guard k0 <= k1 else { continue }
            let dx = b.x - a.x
            for k in k0...k1 {
                let u = gridStart + Float(k) * step
                t[k] = dx > 1e-6 ? a.y + (b.y - a.y) * ((u - a.x) / dx) : (a.y + b.y) / 2
            }
        }
    }

    /// Draws the mouth interior over `area` (image pixels, inside the canvas' dirty rectangle). `toLocal` maps
    /// destination image coordinates to the mouth frame; `openingSpan` is the opening's x range there and
    /// `centerGap` its height at the centre; `tongue` raises the tongue tip; `round` (the lips' rounding) pushes
    /// the lips forward over the teeth, the tongue low and back behind them: o and u show the dark of the mouth
    /// (on u the teeth covered).
    ///
    /// Back to front: the cavity, the tongue's body, the lower teeth, the tongue tip, the gums and upper teeth;
    /// then contact shadows under the upper lip and over the lower one, and the coverage of the opening.
    func draw(on canvas: FrameCanvas, area: PixelRect, toLocal: Affine2, openingSpan: ClosedRange<Float>,
              centerGap: Float, tongue: Float, round: Float = 0, upperLift: Float = 0) {
        let pal = palette
        let seamColor = pal.lip * 0.35
        let gumColor = pal.gum
        let mid = (openingSpan.lowerBound + openingSpan.upperBound) / 2
        let halfOpen = max((openingSpan.upperBound - openingSpan.lowerBound) / 2, 0.5)
        let hw = mouthHalfWidth
        // The tongue lies low and back: a rounded opening (o, u) shows the dark of the mouth over it.
        let tongueFade = smoothstep(0.3 * hw, 0.75 * hw, centerGap) * (1 - FaceRig.roundedShare(sanitized(round, 0, 1)))
        let invStep = 1 / step
        let tl = teethLength
        // The lower teeth ride on the jaw just inside the lower lip: a band up to a third of the teeth's length
        // shows above the lip as the mouth opens wide.
        let covered = sanitized(round, 0, 1)
        let lowerShow = 0.5 * tl * smoothstep(0.15 * hw, 0.6 * hw, centerGap) * (1 - covered)
        // Rounded lips reach over the upper teeth: less of them shows, and that little in the lips' shade.
        let teethShown = 1 - smoothstep(0.8, 1, covered)
        let teethBack = 0.35 * tl * covered
        let coveredShade = 1 - 0.2 * covered
        // Rounded lips push forward and carry their inside with them: the teeth show just under the raised
        // upper lip (as far as it rose, at full rounding), not below a band of gum.
        let teethShift = upperLift * FaceRig.roundedShare(covered)
        // The tongue tip: a rounded blade 0.45 half-widths across that rises from the body towards the upper
        // teeth's edge (and a little past it, between the teeth) as `tongue` goes to 1.
        let tip = sanitized(tongue, 0, 1)
        let tipHalf = 0.45 * hw
        let upperShadowMax = max(1, 0.05 * hw), lowerShadowMax = max(0.8, 0.035 * hw)
        for y in area.y..<area.maxY {
            let yc = Float(y) + 0.5
            for x in area.x..<area.maxX {
                let xc = Float(x) + 0.5
                let u = toLocal.a * xc + toLocal.b * yc + toLocal.c
                let v = toLocal.d * xc + toLocal.e * yc + toLocal.f
                let kf = (u - gridStart) * invStep + 0.5
                guard kf >= 0, kf < Float(count) else { continue }
                let k = Int(kf)
                let yU = upper[k], yL = lower[k]
                let cov = min(min(v + 0.5, yL) - max(v - 0.5, yU), 1)
                let gap = yL - yU
                var seamA: Float = 0
                if seam[k] > 0, gap < 1.5, yU < 1e8 {
                    let d = abs(v - (yU + max(gap, 0) / 2))
                    seamA = seam[k] * (1 - max(gap, 0) / 1.5) * (1 - smoothstep(0, 1.1, d))
                }
                guard cov > 0 || seamA > 0 else { continue }
                let o = canvas.outPixel(x, y)
                var current = SIMD3(Float(o[0]), Float(o[1]), Float(o[2]))
                if cov > 0 {
                    let t = clamp01((v - yU) / max(gap, 1))
                    let so = (u - mid) / halfOpen
                    var col = pal.cavity * ((0.6 + 0.7 * t) * max(0.4, 1 - 0.45 * so * so))
                    // Tongue body, low in the mouth on wide openings.
                    var bodyTop: Float = 1e9
                    if tongueFade > 0 {
                        bodyTop = yL - 0.34 * gap * max(0, 1 - (so / 0.75) * (so / 0.75)).squareRoot()
                        let tc = clamp01(v - bodyTop + 0.5) * tongueFade
                        if tc > 0 {
                            let lit = 0.5 + 0.35 * clamp01((v - bodyTop) / max(0.2 * gap, 1))
                            col += (pal.tongue * lit - col) * tc
                        }
                    }
                    // Lower teeth, carried by the jaw; in the shade of the upper jaw.
                    let lEdge = yL - lowerShow + lowerEdge[k]
                    let lcov = lowerShow > 0 ? clamp01(v - lEdge + 0.5) : 0
                    if lcov > 0 {
                        let depth = clamp01((v - lEdge) / max(0.6 * tl, 1))
                        let shade = lowerShade[k] * (0.88 - 0.12 * depth) * (1 - 0.28 * lowerGap[k])
                        col += (pal.teeth * shade - col) * lcov
                    }
                    // Tongue tip.
                    if tip > 0 {
                        let dx = (u - teethMid) / tipHalf
                        if abs(dx) < 1 {
                            let raised = teethEdge[k] - 0.25 * tl + 0.35 * tl * dx * dx
                            let low = min(bodyTop, yL + 0.2 * tl)
                            let top = low + (raised - low) * tip
                            let across = 1 - smoothstep(0.75, 1, abs(dx))
                            let tc = clamp01(v - top + 0.5) * across * min(1, 2 * tip)
                            if tc > 0 {
                                let lit = 1.05 + 0.15 * clamp01((v - top) / max(0.4 * tl, 1)) - 0.1 * (1 - abs(dx))
                                col += (pal.tongue * lit - col) * tc
                            }
                        }
                    }
                    // Gums, and the upper teeth below them (fixed to the skull).
                    let edge = teethEdge[k] - teethBack + teethShift, gumLine = gumEdge[k] + teethShift
                    let tcov = clamp01(edge - v + 0.5) * teethShown
                    if tcov > 0 {
                        let onGum = clamp01(gumLine - v + 0.5)
                        let down = clamp01((v - gumLine) / max(edge - gumLine, 1))
                        // Warmer at the gum, a little translucent at the edge, darker in the gaps between teeth
                        // (most at the gum and the edge, where the teeth part).
                        var tooth = pal.teeth * (teethShade[k] * coveredShade)
                        tooth.x *= 0.94 + 0.08 * down
                        tooth *= 1 - 0.1 * smoothstep(0.7, 1, down)
                        let apart = 0.12 + 0.3 * max(1 - smoothstep(0, 0.25, down), smoothstep(0.8, 1, down))
                        tooth *= 1 - apart * teethGap[k]
                        let surface = tooth + (gumColor - tooth) * onGum
                        col += (surface - col) * tcov
                    }
                    // Contact shadows where the lips meet the teeth (narrower in a narrow opening).
                    col *= 0.62 + 0.38 * smoothstep(0, max(0.6, min(upperShadowMax, 0.3 * gap)), v - yU)
                    col *= 0.78 + 0.22 * smoothstep(0, max(0.5, min(lowerShadowMax, 0.2 * gap)), yL - v)
                    // Partly covered pixels keep the warped lips (or, just inside the opening, the head-moved
                    // portrait, which is lip-coloured there) under the interior.
                    current += (col - current) * cov
                }
                if seamA > 0 { current += (seamColor - current) * seamA }
                o[0] = UInt8(min(max(current.x, 0), 255))
                o[1] = UInt8(min(max(current.y, 0), 255))
                o[2] = UInt8(min(max(current.z, 0), 255))
            }
        }
    }
}
