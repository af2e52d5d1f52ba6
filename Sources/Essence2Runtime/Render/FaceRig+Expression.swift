extension FaceRig {
    /// A vertex added inside each eye opening, where the iris is: the eye's lids and corners are joined to it
    /// by a fan of triangles, so moving it moves the iris (gaze) while the lids stay where they are.
    struct EyeCentre {
        /// Where it sits in the portrait.
        var point: SIMD2<Float>
        /// Its displacement at blink = 1 (onto the line where the closed lids meet).
        var blink: SIMD2<Float>
        /// Its displacement at gaze (1, 0) and (0, 1).
        var gazeX: SIMD2<Float>
        var gazeY: SIMD2<Float>
        /// The eye's contour, as vertex indices around the opening.
        var contour: [Int]
    }

    /// The iris moves by this fraction of the eye's width at gaze 1 sideways (half the iris radius), and half
    /// as far up or down.
    static let gazePerEyeWidth: Float = 0.1

    /// The centre vertex of `eye`: the mesh's iris centre when it has one inside the opening, else the middle
    /// of the opening, kept well inside the lids. Nil when the eye is (almost) closed in the portrait.
    static func eyeCentre(_ eye: MediaPipeFace.Eye, points: [SIMD2<Float>], irises: [SIMD2<Float>]) -> EyeCentre? {
        let a = points[eye.outer], b = points[eye.inner]
        let (l, r) = a.x <= b.x ? (a, b) : (b, a)
        let frame = LocalFrame(origin: l, from: l, to: r)
        let span = length(r - l)
        guard span > 2, span.isFinite else { return nil }
        let upper = PiecewiseLinear(([eye.outer] + eye.upper + [eye.inner]).map { frame.local(points[$0]) })
        let lower = PiecewiseLinear(([eye.outer] + eye.lower + [eye.inner]).map { frame.local(points[$0]) })
        let contour = eye.contour
        var guess = contour.reduce(SIMD2<Float>.zero) { $0 + points[$1] } / Float(contour.count)
        if let iris = irises.min(by: { length($0 - guess) < length($1 - guess) }), length(iris - guess) < 0.35 * span {
            guess = iris
        }
        var p = frame.local(guess)
        p.x = min(max(p.x, 0.25 * span), 0.75 * span)
        let yU = upper(p.x), yL = lower(p.x), open = yL - yU
        guard open > 2 else { return nil }
        p.y = min(max(p.y, yU + 0.35 * open), yL - 0.35 * open)
        let meet = yL - lidMeeting * open
        let shift = gazePerEyeWidth * span
        // The iris may not come closer to a lid than a quarter of the opening.
        let shiftY = min(0.5 * shift, 0.1 * open)
        return EyeCentre(point: frame.world(p), blink: frame.worldVector(SIMD2(0, meet - p.y)),
                         gazeX: frame.worldVector(SIMD2(shift, 0)), gazeY: frame.worldVector(SIMD2(0, shiftY)),
                         contour: contour)
    }

    /// Triangles joining an eye's centre vertex `centre` to each edge of its contour.
    static func eyeFanTriangles(centre: Int, contour: [Int]) -> [SIMD3<Int32>] {
        (0..<contour.count).map { k in
            SIMD3(Int32(centre), Int32(contour[k]), Int32(contour[(k + 1) % contour.count]))
        }
    }

    /// Brow basis: at browRaise = 1 each brow rises by a quarter of its height above the upper lid; the forehead
    /// above rises less and less, the skin between brow and lid stretches, and the lid edge stays put.
    static func browBasis(points: [SIMD2<Float>]) -> [SIMD2<Float>] {
        var basis = [SIMD2<Float>](repeating: .zero, count: points.count)
        for (eye, brow) in [(MediaPipeFace.rightEye, MediaPipeFace.rightBrow), (MediaPipeFace.leftEye, MediaPipeFace.leftBrow)] {
            let a = points[eye.outer], b = points[eye.inner]
            let (l, r) = a.x <= b.x ? (a, b) : (b, a)
            let frame = LocalFrame(origin: l, from: l, to: r)
            let span = length(r - l)
            guard span > 2, span.isFinite else { continue }
            let lid = PiecewiseLinear(([eye.outer] + eye.upper + [eye.inner]).map { frame.local(points[$0]) })
            let browLine = PiecewiseLinear(brow.map { frame.local((points[$0.0] + points[$0.1]) / 2) })
            let mid = 0.5 * span
            let rise = 0.25 * max(lid(mid) - browLine(mid), 0)
            guard rise > 0.2 else { continue }
            let lidSet = Set(eye.upper + eye.lower + [eye.outer, eye.inner])
            for i in 0..<points.count where !lidSet.contains(i) {
                let p = frame.local(points[i])
                let outside = max(-0.15 * span - p.x, p.x - 1.15 * span, 0)
                let lateral = 1 - smoothstep(0, 0.4 * span, outside)
                guard lateral > 0 else { continue }
                let yB = browLine(p.x), yL = lid(p.x)
                let gap = max(yL - yB, 1)
                let w: Float
                if p.y <= yB {
                    w = 1 - smoothstep(0, 1.6 * gap, yB - p.y)
                } else if p.y < yL {
                    w = smoothstep(0.2, 1, (yL - p.y) / gap)
                } else {
                    w = 0
                }
                let d = frame.worldVector(SIMD2(0, -rise * w * lateral))
                if length(d) > length(basis[i]) { basis[i] = d }
            }
        }
        return basis
    }
}
