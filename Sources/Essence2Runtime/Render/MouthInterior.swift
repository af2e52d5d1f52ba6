import Glibc

/// The synthesized inside of the mouth: colours from the portrait, upper teeth fixed to the skull, and per
/// frame the lip opening tabulated along the mouth's x axis.
///
/// All positions are in the mouth frame of the portrait (x from the subject's right corner to the left one,
/// y down, pixels), sampled on a fixed grid of `step` pixels over three half-widths around the centre.
final class MouthInterior {
    let palette: MouthPalette
    let step: Float
    let gridStart: Float
    let count: Int
    /// Incisal edge of the upper teeth (y) and their shading (lateral fall-off and gaps between teeth).
    let teethEdge: UnsafeMutablePointer<Float>
    let teethShade: UnsafeMutablePointer<Float>
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

    init(mouth m: MouthGeometry, palette: MouthPalette, closeUpper: Float) {
        self.palette = palette
        let hw = m.halfWidth
        mouthHalfWidth = hw
        step = max(0.125, min(0.5, hw / 140))
        gridStart = -1.6 * hw
        count = Int(3.2 * hw / step) + 2
        teethEdge = .allocate(capacity: count)
        teethShade = .allocate(capacity: count)
        seam = .allocate(capacity: count)
        slack = .allocate(capacity: count)
        upper = .allocate(capacity: count)
        lower = .allocate(capacity: count)
        upper.initialize(repeating: 1e9, count: count)
        lower.initialize(repeating: -1e9, count: count)
        teethLength = 0.15 * hw
        let innerHalf = max((m.upperInner.upperBound - m.upperInner.lowerBound) / 2, 1)
        let innerMid = (m.upperInner.upperBound + m.upperInner.lowerBound) / 2
        // Tooth boundaries (fractions of the inner half-width from the midline): incisors, canines, premolars.
        let bounds: [Float] = [0, 0.2, 0.37, 0.52, 0.65, 0.77, 0.88, 1]
        let lineWidth = max(0.35, 0.012 * hw)
        let seamScale = max(1, 0.1 * hw)
        for k in 0..<count {
            let u = gridStart + Float(k) * step
            let s = (u - innerMid) / innerHalf, a = abs(s)
            var j = 0
            while j < bounds.count - 2, a > bounds[j + 1] { j += 1 }
            let lo = bounds[j], hi = bounds[j + 1]
            let within = clamp01((a - lo) / (hi - lo))
            let nearest = min(a - lo, hi - a) * innerHalf
            let root = m.upperInner(u) + closeUpper * m.photographedGap(u)
            // Shorter teeth towards the sides, each edge slightly rounded at its corners.
            let notch = 0.06 * teethLength * (1 - smoothstep(0, 2.5 * lineWidth, nearest))
            teethEdge[k] = root + teethLength * (1 - 0.4 * s * s) - notch
            let lateral = max(0.25, 1 - 0.6 * s * s)
            let convex = 0.9 + 0.1 * sinf(Float.pi * within)
            teethShade[k] = lateral * convex * (1 - 0.16 * (1 - smoothstep(0, lineWidth, nearest)))
            seam[k] = 0.45 * clamp01(m.photographedGap(u) / seamScale)
            slack[k] = m.closedSlack(u)
        }
    }

    deinit {
        teethEdge.deallocate(); teethShade.deallocate(); seam.deallocate(); slack.deallocate()
        upper.deallocate(); lower.deallocate()
    }

    /// Tabulates the lip opening from the inner lip outlines (mouth frame, corner to corner).
    func setOpening(upper up: UnsafePointer<SIMD2<Float>>, lower lo: UnsafePointer<SIMD2<Float>>, points n: Int) {
        upper.update(repeating: 1e9, count: count)
        lower.update(repeating: -1e9, count: count)
        MouthInterior.rasterize(up, n, into: upper, gridStart: gridStart, step: step, count: count)
        MouthInterior.rasterize(lo, n, into: lower, gridStart: gridStart, step: step, count: count)
        for k in 0..<count { lower[k] -= slack[k] }
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
    /// `centerGap` its height at the centre.
    func draw(on canvas: FrameCanvas, area: PixelRect, toLocal: Affine2, openingSpan: ClosedRange<Float>,
              centerGap: Float) {
        let pal = palette
        let seamColor = pal.lip * 0.35
        let mid = (openingSpan.lowerBound + openingSpan.upperBound) / 2
        let halfOpen = max((openingSpan.upperBound - openingSpan.lowerBound) / 2, 0.5)
        let tongueFade = smoothstep(0.3 * mouthHalfWidth, 0.75 * mouthHalfWidth, centerGap)
        let invStep = 1 / step
        let tl = teethLength
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
                    if tongueFade > 0 {
                        let top = yL - 0.34 * gap * max(0, 1 - (so / 0.75) * (so / 0.75)).squareRoot()
                        let tc = clamp01(v - top + 0.5) * tongueFade
                        if tc > 0 {
                            let lit = 0.5 + 0.35 * clamp01((v - top) / max(0.2 * gap, 1))
                            col += (pal.tongue * lit - col) * tc
                        }
                    }
                    let edge = teethEdge[k]
                    let tcov = clamp01(edge - v + 0.5)
                    if tcov > 0 {
                        let shadow = 0.55 + 0.45 * smoothstep(0, 0.45 * tl, v - yU)
                        let tip = 1 - 0.1 * (1 - smoothstep(0, 0.3 * tl, edge - v))
                        col += (pal.teeth * (teethShade[k] * shadow * tip) - col) * tcov
                    }
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
