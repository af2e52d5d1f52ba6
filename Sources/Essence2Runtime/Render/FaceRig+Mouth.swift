import Glibc

extension FaceRig {
    /// Displacement bases of the mouth and jaw, face vertices only.
    struct MouthBases {
        var gap: [SIMD2<Float>]
        var jaw: [SIMD2<Float>]
        var spread: [SIMD2<Float>]
        var round: [SIMD2<Float>]
        var press: [SIMD2<Float>]
        var tuck: [SIMD2<Float>]
        var closure: [SIMD2<Float>]
        /// Per pixel of lip opening, each vertex's displacement in a rounded opening at its full height (see
        /// `roundedOpening`), and its place across the mouth, -1 (right corner) ... 1 (left corner), clamped.
        var roundOpen: [SIMD2<Float>]
        var across: [Float]
    }

    /// The rounded opening's height at `x` (a vertex's `across`) per pixel of lip opening at rounding `round`:
    /// an ellipse over the middle of the mouth (0.7 of the half-width wide unrounded, 0.4 at full rounding,
    /// before the corners draw in), `roundOpenHeight` tall, closed beyond it. The rig blends it in for the lens
    /// of an unrounded opening as the lips round (`roundedShare`), so o and u open as round holes, not slots.
    @inline(__always)
    static func roundedOpening(_ x: Float, round: Float) -> Float {
        let w = FaceRig.roundOpenWidth - FaceRig.roundOpenNarrow * round
        let t = x / w
        return FaceRig.roundOpenHeight * max(0, 1 - t * t).squareRoot()
    }

    /// How much of the lip opening takes the rounded shape at rounding `round`: all of it from 0.6 (o is 0.75).
    @inline(__always)
    static func roundedShare(_ round: Float) -> Float { min(1, round / 0.6) }

    /// Builds the mouth bases. Every vertex is split between the upper face and the lower lip and jaw
    /// (`lower`, 0...1): inner-lip vertices by topology (the upper and lower inner lip coincide on a closed
    /// mouth), the rest by their side of the line between the lips, softly beside the mouth corners so the cheeks
    /// stretch. Lip motion fades with distance from the lips; below the lower lip it blends into a rigid jaw
    /// drop that fades towards the jaw hinges.
    static func mouthBases(points: [SIMD2<Float>], mouth m: MouthGeometry, metrics: FaceMetrics) -> MouthBases {
        let n = points.count
        let hw = m.halfWidth
        let faceHalf = max(metrics.width / 2, hw * 1.2)
        let upperShare = FaceRig.upperLipShare
        let cornerDrop: Float = 0.3        // mouth corners' share of the jaw drop
        let narrowing: Float = 0.12        // corners move in by this much per pixel of jaw drop
        let spreadWidth: Float = 0.16      // each corner moves out by this fraction of the half-width
        let roundWidth: Float = 0.4        // ... or in, when rounding (o and u: about 0.6 of the width)
        let roundInner: Float = 0.6        // the inner lips draw in this much more: a small opening, bunched lips
        let roundThick: Float = 0.4        // rounded lips thicker by this fraction
        let tuckStrip: Float = 0.02        // f/v: the lower lip's top edge down, half-widths (the teeth show)
        let tuckRoll: Float = 0.85         // ... its outer edge up by this fraction of its thickness
        let tuckLift: Float = 0.03         // ... the upper lip up, half-widths
        let tuckReach: Float = 1.2         // ... the skin below follows, fading over this many half-widths
        let closeUpper = FaceRig.closeUpperShare
        let g0Max = m.photographedGap(0) > 0 ? max(m.photographedGap(0), m.photographedGapMax * 0.8) : 0
        let upperInner = Set(MediaPipeFace.upperInnerLip.dropFirst().dropLast())
        let lowerInner = Set(MediaPipeFace.lowerInnerLip.dropFirst().dropLast())
        let corners: Set<Int> = [MediaPipeFace.upperInnerLip[0], MediaPipeFace.upperInnerLip.last!]

        var out = MouthBases(gap: [], jaw: [], spread: [], round: [], press: [], tuck: [], closure: [],
                             roundOpen: [], across: [])
        for i in 0..<n {
            let l = m.frame.local(points[i])
            let u = l.x, v = l.y
            let x = u / hw, ax = abs(x)
            let xc = min(max(x, -1), 1)
            let lat = 1 - smoothstep(1, 2, ax)
            let uo = m.upperOuter(u), ui = m.upperInner(u), li = m.lowerInner(u), lo = m.lowerOuter(u)
            let split = (ui + li) / 2

            let lower: Float
            if lowerInner.contains(i) { lower = 1 }
            else if upperInner.contains(i) { lower = 0 }
            else if corners.contains(i) { lower = 0.5 }
            else {
                let band = hw * (0.04 + 0.4 * smoothstep(1, 2, ax))
                lower = smoothstep(-band, band, v - split)
            }
            let upper = 1 - lower

            // Upper side: full inside the upper lip, fading towards the nose.
            let distUp = (uo - v) / hw
            let decayUp = 1 - smoothstep(0, 0.55, distUp)
            let thickUp = max(ui - uo, 0.5)
            let fracUp = clamp01((ui - v) / thickUp)
            // Lower side: the lip near the lips, a rigid jaw further down.
            let distLo = (v - lo) / hw
            let toJaw = smoothstep(0, 0.8, distLo)
            let decayLo = 1 - smoothstep(0, 0.5, distLo)
            let thickLo = max(lo - li, 0.5)
            let fracLo = clamp01((v - li) / thickLo)
            let jawLat = 1 - smoothstep(0.45 * faceHalf, 1.15 * faceHalf, abs(u))

            let shape = powf(max(0, 1 - xc * xc), 0.7)
            let xField = ax <= 1 ? x : (x < 0 ? -1 : 1) * (1 - smoothstep(1, 2.2, ax))
            let vFall = (1 - smoothstep(0, 0.7, distUp)) * (1 - smoothstep(0, 0.9, distLo))
            let inner = upper * (1 - fracUp) + lower * (1 - fracLo)

            // Lip opening (per pixel of opening at the centre).
            let gapY = upper * (-upperShare * shape * lat * decayUp)
                + lower * ((1 - upperShare) * shape * lat * (1 - toJaw))
            // Jaw drop (per pixel at the chin): corners pulled down, lower face rigid, mouth a bit narrower.
            let jawY = upper * (cornerDrop * xc * xc * lat * decayUp)
                + lower * (cornerDrop * xc * xc * lat * (1 - toJaw) + jawLat * toJaw)
            let jawX = -narrowing * xField * vFall
            // Closing a mouth that is open in the portrait.
            let g0 = m.photographedGap(u)
            let closeY = upper * (closeUpper * g0 * lat * decayUp)
                - lower * ((1 - closeUpper) * (g0 * lat * (1 - toJaw) + g0Max * jawLat * toJaw))
            // Spread: corners out and slightly up, lips thinner.
            let lift = -0.05 * hw * xc * xc * lat * (upper * decayUp + lower * (1 - toJaw))
            let spreadX = spreadWidth * hw * xField * vFall
            let spreadY = lift + upper * (0.15 * thickUp * fracUp * decayUp) - lower * (0.15 * thickLo * fracLo * decayLo)
            // The cheeks above and beside the corners rise on a spread and draw in a little on a round.
            let vn = v / hw
            let cheek = smoothstep(0.6, 1.2, ax) * (1 - smoothstep(2.0, 2.8, ax))
                * smoothstep(-2.2, -1.3, vn) * (1 - smoothstep(-0.2, 0.4, vn))
            let spreadCheekY = -0.08 * hw * cheek
            let roundCheekY = 0.03 * hw * cheek
            // Round: corners in (inner lips more), lips fuller as they push forward.
            let roundX = -roundWidth * hw * xField * vFall * (1 + roundInner * inner)
            let roundY = -upper * (roundThick * thickUp * fracUp * decayUp) + lower * (roundThick * thickLo * fracLo * decayLo)
            // Tuck (f, v): the lower lip rolls in under the upper teeth, its top edge a little lower (the teeth's
            // edge shows resting on it) and its outer edge higher (less of it shows); the upper lip lifts a little.
            let tuckShape = shape * lat
            let tuckDecay = 1 - smoothstep(0, tuckReach, distLo)
            let tuckY = -upper * (tuckLift * hw * tuckShape * decayUp)
                + lower * (tuckStrip * hw * tuckShape * (1 - fracLo) - tuckRoll * thickLo * tuckShape * fracLo * tuckDecay)
            // Press: lips thinner, rolled in.
            let pressY = upper * (0.3 * thickUp * fracUp * decayUp) - lower * (0.3 * thickLo * fracLo * decayLo)

            let f = m.frame
            out.gap.append(f.worldVector(SIMD2(0, gapY)))
            out.jaw.append(f.worldVector(SIMD2(jawX, jawY)))
            out.closure.append(f.worldVector(SIMD2(0, closeY)))
            out.spread.append(f.worldVector(SIMD2(spreadX, spreadY + spreadCheekY)))
            out.round.append(f.worldVector(SIMD2(roundX, roundY + roundCheekY)))
            out.press.append(f.worldVector(SIMD2(0, pressY)))
            out.tuck.append(f.worldVector(SIMD2(0, tuckY)))
            // The rounded opening parts the lips more evenly than the lens (the upper lip arches up too).
            let roundOpenY = -upper * (FaceRig.roundUpperShare * lat * decayUp)
                + lower * ((1 - FaceRig.roundUpperShare) * lat * (1 - toJaw))
            out.roundOpen.append(f.worldVector(SIMD2(0, roundOpenY)))
            out.across.append(xc)
        }
        return out
    }

    /// Parallax weight of each vertex: depth in front of the face outline (from the mesh z), fading to 0 at
    /// the outline so the face stays joined to the head around it.
    static func parallaxWeights(points: [SIMD2<Float>], z: [Float], metrics: FaceMetrics) -> [Float] {
        let sortedZ = z.sorted()
        let zRef = sortedZ[sortedZ.count / 2]
        let zMin = sortedZ[0]
        let range = max(zRef - zMin, 1e-3)
        let f = metrics.frame
        let rx = max(metrics.width / 2, 1), ry = max(metrics.height / 2, 1)
        let outline = Set(MediaPipeFace.faceOval)
        return (0..<points.count).map { i in
            if outline.contains(i) { return 0 }
            let l = f.local(points[i])
            let r = ((l.x / rx) * (l.x / rx) + (l.y / ry) * (l.y / ry)).squareRoot()
            let interior = 1 - smoothstep(0.5, 0.98, r)
            return clamp01((zRef - z[i]) / range) * interior
        }
    }
}
