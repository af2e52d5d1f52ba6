extension FaceRig {
    /// Where the closed lids meet, as a fraction of the opening measured up from the lower lid.
    static let lidMeeting: Float = 0.22

    /// Blink basis: at blink = 1 the upper lid edge comes down to meet the lower one (which rises a little);
    /// the skin above slides down with it, fading with distance so the brow stays put.
    static func blinkBasis(points: [SIMD2<Float>]) -> [SIMD2<Float>] {
        var basis = [SIMD2<Float>](repeating: .zero, count: points.count)
        for eye in [MediaPipeFace.rightEye, MediaPipeFace.leftEye] {
            let a = points[eye.outer], b = points[eye.inner]
            // Frame from the image-left corner to the image-right one, so y points down.
            let (l, r) = a.x <= b.x ? (a, b) : (b, a)
            let frame = LocalFrame(origin: l, from: l, to: r)
            let span = length(r - l)
            guard span > 1 else { continue }
            let upperPts = ([eye.outer] + eye.upper + [eye.inner]).map { frame.local(points[$0]) }
            let lowerPts = ([eye.outer] + eye.lower + [eye.inner]).map { frame.local(points[$0]) }
            let upperCurve = PiecewiseLinear(upperPts), lowerCurve = PiecewiseLinear(lowerPts)
            var opening: Float = 0
            for p in upperPts { opening = max(opening, lowerCurve(p.x) - p.y) }
            guard opening > 0.5 else { continue }
            let upperSet = Set(eye.upper), lowerSet = Set(eye.lower)
            for i in 0..<points.count where i != eye.outer && i != eye.inner {
                let p = frame.local(points[i])
                guard p.x > -0.2 * span, p.x < 1.2 * span else { continue }
                let yU = upperCurve(p.x), yL = lowerCurve(p.x)
                let open = max(yL - yU, 0)
                let meet = yL - lidMeeting * open
                var dy: Float = 0
                if upperSet.contains(i) {
                    dy = meet - yU
                } else if lowerSet.contains(i) {
                    dy = meet - yL
                } else if p.y < yU {
                    dy = (meet - yU) * (1 - smoothstep(0, 0.75 * opening, yU - p.y))
                } else if p.y > yL {
                    dy = (meet - yL) * (1 - smoothstep(0, 0.8 * opening, p.y - yL))
                }
                basis[i] += frame.worldVector(SIMD2(0, dy))
            }
        }
        return basis
    }

    /// Triangles filling an eye opening that has no centre vertex (the mesh leaves it empty): a strip between
    /// the lids that closes flat when the lids meet.
    static func eyeStripTriangles(_ eye: MediaPipeFace.Eye) -> [SIMD3<Int32>] {
        var tris: [SIMD3<Int32>] = []
        let up = eye.upper.map(Int32.init), lo = eye.lower.map(Int32.init)
        tris.append(SIMD3(Int32(eye.outer), up[0], lo[0]))
        for k in 0..<(up.count - 1) {
            tris.append(SIMD3(up[k], up[k + 1], lo[k]))
            tris.append(SIMD3(up[k + 1], lo[k + 1], lo[k]))
        }
        tris.append(SIMD3(up[up.count - 1], Int32(eye.inner), lo[lo.count - 1]))
        return tris
    }
}
