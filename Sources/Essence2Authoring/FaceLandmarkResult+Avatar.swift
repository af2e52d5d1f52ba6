import Essence2Runtime
import Essence2Vision

extension FaceLandmarkResult {
    /// Iris radius as a fraction of the eye's corner-to-corner width (MediaPipe's iris model gives 0.198 ...
    /// 0.206 on the shipped portraits).
    static let irisRadiusRatio: Float = 0.20

    /// The 478 points of a refined MediaPipe Face Mesh: the 468 face points, then for the subject's right eye
    /// and then the left one an iris centre and four iris ring points (toward the image's right, up, left,
    /// down along the eye's axis), in MediaPipe's order. The iris is estimated from the eye contour (its
    /// mean, which is also MediaPipe's iris depth; radius 0.2 eye widths), since the iris model is not run.
    package var meshPoints: [SIMD3<Float>] {
        var all = points
        guard points.count == FaceLandmarker.pointCount else { return all }
        for eye in [MediaPipeFace.rightEye, MediaPipeFace.leftEye] {
            let contour = eye.contour
            var centre = SIMD3<Float>.zero
            for index in contour { centre += points[index] }
            centre /= Float(contour.count)
            let outer = SIMD2(points[eye.outer].x, points[eye.outer].y)
            let inner = SIMD2(points[eye.inner].x, points[eye.inner].y)
            // From the corner on the image's left to the one on its right.
            let span = outer.x <= inner.x ? inner - outer : outer - inner
            let length = (span * span).sum().squareRoot()
            let axis = length > 0 ? span / length : SIMD2<Float>(1, 0)
            let normal = SIMD2(-axis.y, axis.x)  // points down the image
            let radius = Self.irisRadiusRatio * length
            for offset in [SIMD2<Float>.zero, radius * axis, -radius * normal, -radius * axis, radius * normal] {
                all.append(SIMD3(centre.x + offset.x, centre.y + offset.y, centre.z))
            }
        }
        return all
    }

    /// The avatar's face mesh: `meshPoints` with x and y clipped to the image, and the triangles of the
    /// MediaPipe topology shared by the shipped portraits (`FaceMeshTemplate`).
    package func mesh() -> FaceMesh {
        let indices = FaceMeshTemplate.triangleIndices
        let triangles: [SIMD3<UInt16>] = stride(from: 0, to: indices.count - 2, by: 3).map {
            SIMD3(indices[$0], indices[$0 + 1], indices[$0 + 2])
        }
        return FaceMesh(points: meshPoints.map { SIMD3(clipped(SIMD2($0.x, $0.y)), $0.z) }, triangles: triangles)
    }

    /// The avatar's landmarks, made from the mesh as the shipped `*.landmarks.json` were: the named points and
    /// the 20-point lip outlines at their MediaPipe indices, the face box bounding all 478 points (rounded
    /// outward), and the mouth box: the outer lips' bounds widened by 0.25 of their width on each side and
    /// 0.6 of their height above and below (rounded). Points are clipped to the image.
    package func landmarks() -> FaceLandmarks {
        let mesh = meshPoints.map { clipped(SIMD2($0.x, $0.y)) }
        func point(_ index: Int) -> SIMD2<Float> { index < mesh.count ? mesh[index] : .zero }
        var named: [String: SIMD2<Float>] = [:]
        for (name, index) in FaceMesh.mediaPipeNamedIndices { named[name] = point(index) }
        let outer = FaceMesh.mediaPipeLipsOuter.map(point)
        let inner = FaceMesh.mediaPipeLipsInner.map(point)
        let faceBox = box(mesh, grow: .zero, outward: true)
        let lips = bounds(outer)
        let lipsSize = lips.max - lips.min
        let mouthBox = box(outer, grow: SIMD2(0.25 * lipsSize.x, 0.6 * lipsSize.y), outward: false)
        return FaceLandmarks(points: named, lipsOuter: outer, lipsInner: inner, faceBox: faceBox, mouthBox: mouthBox)
    }

    private func clipped(_ p: SIMD2<Float>) -> SIMD2<Float> {
        let x = p.x.isFinite ? min(max(p.x, 0), Float(width)) : 0
        let y = p.y.isFinite ? min(max(p.y, 0), Float(height)) : 0
        return SIMD2(x, y)
    }

    private func bounds(_ points: [SIMD2<Float>]) -> (min: SIMD2<Float>, max: SIMD2<Float>) {
        guard var low = points.first else { return (.zero, .zero) }
        var high = low
        for p in points {
            low = pointwiseMin(low, p)
            high = pointwiseMax(high, p)
        }
        return (low, high)
    }

    /// The bounds of `points` grown by `grow` on each side, as whole pixels inside the image and at least
    /// one pixel wide and high.
    private func box(_ points: [SIMD2<Float>], grow: SIMD2<Float>, outward: Bool) -> PixelRect {
        let b = bounds(points)
        let low = b.min - grow, high = b.max + grow
        func whole(_ v: Float, _ rule: FloatingPointRoundingRule, limit: Int) -> Int {
            min(max(Int(v.rounded(rule)), 0), limit)
        }
        let x0 = whole(low.x, outward ? .down : .toNearestOrAwayFromZero, limit: max(0, width - 1))
        let y0 = whole(low.y, outward ? .down : .toNearestOrAwayFromZero, limit: max(0, height - 1))
        let x1 = max(x0 + 1, whole(high.x, outward ? .up : .toNearestOrAwayFromZero, limit: width))
        let y1 = max(y0 + 1, whole(high.y, outward ? .up : .toNearestOrAwayFromZero, limit: height))
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}
