/// An orthonormal frame in the image plane (origin plus x and y axes, y pointing "down" the face).
struct LocalFrame {
    var origin: SIMD2<Float>
    /// Unit x axis; the y axis is `ex` turned a quarter clockwise on screen.
    var ex: SIMD2<Float>

    var ey: SIMD2<Float> { SIMD2(-ex.y, ex.x) }

    /// A frame whose x axis runs from `from` to `to`; falls back to the image axes when the points coincide.
    init(origin: SIMD2<Float>, from: SIMD2<Float>, to: SIMD2<Float>) {
        self.origin = origin
        let d = to - from
        let n = (d * d).sum().squareRoot()
        ex = n > 1e-6 && n.isFinite ? d / n : SIMD2(1, 0)
    }

    @inline(__always)
    package func local(_ p: SIMD2<Float>) -> SIMD2<Float> {
        let q = p - origin
        return SIMD2((q * ex).sum(), (q * ey).sum())
    }

    @inline(__always)
    func world(_ l: SIMD2<Float>) -> SIMD2<Float> { origin + l.x * ex + l.y * ey }

    @inline(__always)
    func worldVector(_ l: SIMD2<Float>) -> SIMD2<Float> { l.x * ex + l.y * ey }

    /// The affine map from image coordinates to this frame's coordinates.
    var toLocal: Affine2 {
        let y = ey
        return Affine2(a: ex.x, b: ex.y, c: -(ex.x * origin.x + ex.y * origin.y),
                       d: y.x, e: y.y, f: -(y.x * origin.x + y.y * origin.y))
    }
}
