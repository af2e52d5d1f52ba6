extension FaceRig {
    /// A ring of points around the face outline, one per outline point, pushed outwards from the face centre:
    /// about a tenth of the face height at the forehead and cheeks, more under the chin so the jaw can drop.
    static func bandRing(points: [SIMD2<Float>], metrics: FaceMetrics) -> [SIMD2<Float>] {
        let down = metrics.frame.ey
        return MediaPipeFace.faceOval.map { i in
            let o = points[i]
            var d = o - metrics.center
            let n = length(d)
            d = n > 1e-3 ? d / n : down
            let downness = (d * down).sum()
            let w = metrics.height * (0.1 + 0.22 * smoothstep(0.3, 0.9, downness))
            return o + d * w
        }
    }

    /// Two triangles per outline segment between the outline and the ring (ring vertex k is `faceCount + k`).
    static func bandTriangles(faceCount: Int) -> [SIMD3<Int32>] {
        let oval = MediaPipeFace.faceOval
        let n = oval.count
        var tris: [SIMD3<Int32>] = []
        for k in 0..<n {
            let k1 = (k + 1) % n
            let o0 = Int32(oval[k]), o1 = Int32(oval[k1])
            let r0 = Int32(faceCount + k), r1 = Int32(faceCount + k1)
            tris.append(SIMD3(o0, o1, r0))
            tris.append(SIMD3(o1, r1, r0))
        }
        return tris
    }
}
