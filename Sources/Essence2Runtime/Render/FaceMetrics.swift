/// Size, position and orientation of the face in the portrait, from the mesh (or the landmarks without one).
struct FaceMetrics {
    /// Forehead top to chin, in pixels.
    package var height: Float
    /// Cheek edge to cheek edge, in pixels.
    package var width: Float
    var foreheadTop: SIMD2<Float>
    var chin: SIMD2<Float>
    /// Centre of the face outline.
    package var center: SIMD2<Float>
    /// Face frame: origin at `center`, x axis along the eye line (subject's right eye to left eye), y down the face.
    var frame: LocalFrame

    /// Where the head turns on the neck (roll pivot): below the chin.
    var pivot: SIMD2<Float> { chin + frame.ey * (0.35 * height) }

    init(mesh: FaceMesh, landmarks: FaceLandmarks) {
        let pts = mesh.points
        func p(_ i: Int) -> SIMD2<Float>? {
            guard i < pts.count else { return nil }
            let v = SIMD2(pts[i].x, pts[i].y)
            return v.x.isFinite && v.y.isFinite ? v : nil
        }
        func named(_ k: String) -> SIMD2<Float>? {
            guard let v = landmarks.points[k], v.x.isFinite, v.y.isFinite else { return nil }
            return v
        }
        let box = landmarks.faceBox
        let boxCenter = SIMD2(Float(box.x) + Float(box.width) / 2, Float(box.y) + Float(box.height) / 2)
        let top = p(MediaPipeFace.foreheadTop) ?? named("forehead_top")
            ?? SIMD2(boxCenter.x, Float(box.y))
        let chin = p(MediaPipeFace.chin) ?? named("chin") ?? SIMD2(boxCenter.x, Float(box.maxY))
        var h = length(chin - top)
        if !(h > 4) { h = max(Float(box.height), 16) }
        var w: Float = Float(box.width)
        if let r = p(MediaPipeFace.cheekEdgeRight), let l = p(MediaPipeFace.cheekEdgeLeft) { w = length(l - r) }
        if !(w > 4) { w = h * 0.85 }
        var center = (top + chin) / 2
        let oval = MediaPipeFace.faceOval.compactMap(p)
        if oval.count == MediaPipeFace.faceOval.count {
            center = oval.reduce(SIMD2<Float>.zero, +) / Float(oval.count)
        }
        let rightEye = p(33) ?? named("right_eye_outer") ?? center - SIMD2(1, 0)
        let leftEye = p(263) ?? named("left_eye_outer") ?? center + SIMD2(1, 0)
        height = h
        width = w
        foreheadTop = top
        self.chin = chin
        self.center = center
        frame = LocalFrame(origin: center, from: rightEye, to: leftEye)
    }
}
