/// The deformable face: mesh vertices in the portrait, the triangles between them, and per-vertex displacement
/// bases that articulation and blinking scale and add up (a linear rig, evaluated once per frame).
///
/// Vertices: the 468 MediaPipe face points, then a ring around the face outline (the "band") whose triangles
/// join the moving face to the head and neck around it, so the jaw can move without tearing.
struct FaceRig {
    /// Upper lip's share of a change of lip opening (the lower lip and jaw take the rest).
    static let upperLipShare: Float = 0.2
    /// Widest lip opening at jawOpen = 1, as a fraction of the mouth width, at most a fraction of the face height.
    static let gapPerMouthWidth: Float = 0.42
    static let gapPerFaceHeight: Float = 0.15
    /// Upper lip's share of closing a mouth that is open in the portrait.
    static let closeUpperShare: Float = 0.35
    /// The rounded opening (`roundedOpening`): its height at the middle per pixel of lip opening, and the upper
    /// lip's share of it.
    static let roundOpenHeight: Float = 2
    static let roundUpperShare: Float = 0.5
    /// Its half-width unrounded and how much it narrows at full rounding, fractions of the mouth's half-width
    /// (before the corners draw in).
    static let roundOpenWidth: Float = 0.7
    static let roundOpenNarrow: Float = 0.3

    /// Vertex positions in the portrait.
    let source: [SIMD2<Float>]
    /// Where each vertex samples the portrait: `source`, except that on a portrait photographed with the lips
    /// apart the inner lip edges sample a little inside the lips, so closed lips meet lip to lip rather than
    /// showing the teeth-lit edge pixels.
    let texture: [SIMD2<Float>]
    /// Number of face vertices (they come first: the 468 mesh points, then a centre vertex in each eye); the
    /// rest are the band ring.
    let faceCount: Int
    /// Triangles as vertex indices.
    let triangles: [SIMD3<Int32>]
    let metrics: FaceMetrics
    let mouth: MouthGeometry
    /// Widest lip opening (jawOpen = 1), pixels.
    let gapMax: Float

    // Displacement per unit of each control, face vertices only (image axes, pixels).
    let gapBasis: [SIMD2<Float>]
    let jawBasis: [SIMD2<Float>]
    let spreadBasis: [SIMD2<Float>]
    let roundBasis: [SIMD2<Float>]
    let pressBasis: [SIMD2<Float>]
    let tuckBasis: [SIMD2<Float>]
    /// The rounded opening: each face vertex's displacement per pixel of opening at the opening's full height,
    /// and its place across the mouth, -1...1 (0 for the eye centres): see `roundedOpening`.
    let roundOpenBasis: [SIMD2<Float>]
    let across: [Float]
    let blinkBasis: [SIMD2<Float>]
    let browBasis: [SIMD2<Float>]
    /// Displacement at gaze (1, 0) and (0, 1): only the eye centre vertices move.
    let gazeXBasis: [SIMD2<Float>]
    let gazeYBasis: [SIMD2<Float>]
    /// Constant displacement that closes a portrait's open mouth (zero for a closed one).
    let closure: [SIMD2<Float>]
    /// How far each vertex sits in front of the face outline, 0...1 (nose tip 1, outline 0): yaw/pitch parallax.
    let parallax: [Float]
    /// Parallax of the nose tip at |yaw| = 1 or |pitch| = 1, pixels.
    let parallaxAmplitude: Float

    /// A rig for a MediaPipe mesh; nil when the mesh lacks the 468 face points or they are not finite.
    init?(mesh: FaceMesh, landmarks: FaceLandmarks) {
        let n = MediaPipeFace.facePointCount
        guard mesh.points.count >= n else { return nil }
        let pts = mesh.points.prefix(n).map { SIMD2($0.x, $0.y) }
        guard pts.allSatisfy({ abs($0.x) < 1e6 && abs($0.y) < 1e6 }) else { return nil }
        let z = mesh.points.prefix(n).map { $0.z.isFinite ? $0.z : 0 }
        let metrics = FaceMetrics(mesh: mesh, landmarks: landmarks)
        let mouth = MouthGeometry(points: pts)
        self.metrics = metrics
        self.mouth = mouth
        let irises = MediaPipeFace.irisCentres.compactMap { i -> SIMD2<Float>? in
            guard i < mesh.points.count, abs(mesh.points[i].x) < 1e6, abs(mesh.points[i].y) < 1e6 else { return nil }
            return SIMD2(mesh.points[i].x, mesh.points[i].y)
        }
        let eyes = [MediaPipeFace.rightEye, MediaPipeFace.leftEye]
        let centres = eyes.map { FaceRig.eyeCentre($0, points: pts, irises: irises) }
        let extra = centres.count
        faceCount = n + extra
        let still = [SIMD2<Float>](repeating: .zero, count: extra)
        gapMax = min(FaceRig.gapPerMouthWidth * 2 * mouth.halfWidth, FaceRig.gapPerFaceHeight * metrics.height)

        let lips = FaceRig.mouthBases(points: pts, mouth: mouth, metrics: metrics)
        gapBasis = lips.gap + still
        jawBasis = lips.jaw + still
        spreadBasis = lips.spread + still
        roundBasis = lips.round + still
        pressBasis = lips.press + still
        tuckBasis = lips.tuck + still
        roundOpenBasis = lips.roundOpen + still
        across = lips.across + [Float](repeating: 0, count: extra)
        closure = lips.closure + still
        blinkBasis = FaceRig.blinkBasis(points: pts) + centres.map { $0?.blink ?? .zero }
        browBasis = FaceRig.browBasis(points: pts) + still
        gazeXBasis = [SIMD2<Float>](repeating: .zero, count: n) + centres.map { $0?.gazeX ?? .zero }
        gazeYBasis = [SIMD2<Float>](repeating: .zero, count: n) + centres.map { $0?.gazeY ?? .zero }
        let weights = FaceRig.parallaxWeights(points: pts, z: z, metrics: metrics)
        parallax = weights + eyes.map { eye in eye.contour.reduce(0) { $0 + weights[$1] } / Float(eye.contour.count) }
        parallaxAmplitude = 0.03 * metrics.width

        let ring = FaceRig.bandRing(points: pts, metrics: metrics)
        let centrePoints = zip(eyes, centres).map { eye, centre in centre?.point ?? pts[eye.outer] }
        source = pts + centrePoints + ring
        var texture = source
        if mouth.photographedGapMax > 0 {
            let inset: (Int, Float) -> Void = { i, direction in
                let u = mouth.frame.local(pts[i]).x
                let thick = direction < 0 ? mouth.upperInner(u) - mouth.upperOuter(u) : mouth.lowerOuter(u) - mouth.lowerInner(u)
                texture[i] += mouth.frame.ey * (direction * min(1, 0.35 * max(thick, 0)))
            }
            for i in MediaPipeFace.upperInnerLip.dropFirst().dropLast() { inset(i, -1) }
            for i in MediaPipeFace.lowerInnerLip.dropFirst().dropLast() { inset(i, 1) }
        }
        self.texture = texture
        var eyeFill: [SIMD3<Int32>] = []
        for (k, eye) in eyes.enumerated() {
            eyeFill += centres[k] == nil ? FaceRig.eyeStripTriangles(eye)
                : FaceRig.eyeFanTriangles(centre: n + k, contour: eye.contour)
        }
        triangles = FaceRig.cleanTriangles(mesh.triangles, vertexCount: n) + eyeFill
            + FaceRig.bandTriangles(faceCount: faceCount)
    }

    /// Jaw drop per pixel of lip opening when the lips are not pressed.
    var jawPerGap: Float { 1 - FaceRig.upperLipShare }

    /// Destination of every vertex for controls `c`, head transform `head` and screen parallax `parallaxShift`
    /// (pixels at the nose tip); band vertices follow the head as the still background does (`mask`).
    func deform(_ c: RigControls, head: Affine2, parallaxShift: SIMD2<Float>, mask: HeadMask,
                into dest: UnsafeMutablePointer<SIMD2<Float>>) {
        source.withUnsafeBufferPointer { src in
            gapBasis.withUnsafeBufferPointer { g in
            jawBasis.withUnsafeBufferPointer { j in
            spreadBasis.withUnsafeBufferPointer { s in
            roundBasis.withUnsafeBufferPointer { r in
            pressBasis.withUnsafeBufferPointer { p in
            tuckBasis.withUnsafeBufferPointer { tk in
            across.withUnsafeBufferPointer { ac in
            roundOpenBasis.withUnsafeBufferPointer { ro in
            blinkBasis.withUnsafeBufferPointer { b in
            browBasis.withUnsafeBufferPointer { w in
            closure.withUnsafeBufferPointer { k in
            parallax.withUnsafeBufferPointer { par in
                let rounded = FaceRig.roundedShare(c.round)
                for i in 0..<faceCount {
                    var v = src[i] + k[i]
                    if rounded > 0 {
                        let e = FaceRig.roundedOpening(ac[i], round: c.round)
                        v += c.gap * ((1 - rounded) * g[i] + (rounded * e) * ro[i])
                    } else {
                        v += c.gap * g[i]
                    }
                    v += c.jaw * j[i] + c.spread * s[i] + c.round * r[i]
                    v += c.press * p[i] + c.tuck * tk[i] + c.blink * b[i] + c.brow * w[i]
                    dest[i] = head.apply(v) + par[i] * parallaxShift
                }
                // The irises follow the gaze, less and less as the lids close over them.
                let look = c.gaze * (1 - c.blink)
                for i in MediaPipeFace.facePointCount..<faceCount where look != .zero {
                    dest[i] += head.applyVector(look.x * gazeXBasis[i] + look.y * gazeYBasis[i])
                }
            }}}}}}}}}}}}
            for i in faceCount..<src.count {
                let v = src[i]
                dest[i] = v + mask.weight(at: v) * (head.apply(v) - v)
            }
        }
    }
}
