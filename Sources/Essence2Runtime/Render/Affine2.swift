import Glibc

/// A 2-D affine map: `p -> (a*x + b*y + c, d*x + e*y + f)`.
struct Affine2: Equatable {
    var a: Float, b: Float, c: Float
    var d: Float, e: Float, f: Float

    static let identity = Affine2(a: 1, b: 0, c: 0, d: 0, e: 1, f: 0)

    @inline(__always)
    func apply(_ p: SIMD2<Float>) -> SIMD2<Float> {
        SIMD2(a * p.x + b * p.y + c, d * p.x + e * p.y + f)
    }

    /// The linear part applied to a displacement (no translation).
    @inline(__always)
    func applyVector(_ v: SIMD2<Float>) -> SIMD2<Float> {
        SIMD2(a * v.x + b * v.y, d * v.x + e * v.y)
    }

    var isIdentity: Bool { self == .identity }

    /// The inverse map, or nil when the map is (nearly) singular.
    var inverse: Affine2? {
        let det = a * e - b * d
        guard det.isFinite, abs(det) > 1e-12 else { return nil }
        let ia = e / det, ib = -b / det, id = -d / det, ie = a / det
        return Affine2(a: ia, b: ib, c: -(ia * c + ib * f), d: id, e: ie, f: -(id * c + ie * f))
    }

    /// `self` after `other`: `p -> self(other(p))`.
    func after(_ other: Affine2) -> Affine2 {
        Affine2(a: a * other.a + b * other.d, b: a * other.b + b * other.e, c: a * other.c + b * other.f + c,
                d: d * other.a + e * other.d, e: d * other.b + e * other.e, f: d * other.c + e * other.f + f)
    }

    /// Rotation by `angle` radians (clockwise on screen, y down) about `pivot`, followed by a translation.
    static func rotation(_ angle: Float, about pivot: SIMD2<Float>, translation: SIMD2<Float>) -> Affine2 {
        let cs = cosf(angle), sn = sinf(angle)
        let c = pivot.x - (cs * pivot.x - sn * pivot.y) + translation.x
        let f = pivot.y - (sn * pivot.x + cs * pivot.y) + translation.y
        return Affine2(a: cs, b: -sn, c: c, d: sn, e: cs, f: f)
    }

    /// The map sending the triangle `p0, p1, p2` onto `q0, q1, q2`; nil when the first triangle is degenerate.
    static func mapping(_ p0: SIMD2<Float>, _ p1: SIMD2<Float>, _ p2: SIMD2<Float>,
                        to q0: SIMD2<Float>, _ q1: SIMD2<Float>, _ q2: SIMD2<Float>) -> Affine2? {
        let u = p1 - p0, v = p2 - p0
        let det = u.x * v.y - u.y * v.x
        guard abs(det) > 1e-6 else { return nil }
        let s = q1 - q0, t = q2 - q0
        // Solve M * [u v] = [s t] for the linear part M.
        let inv = 1 / det
        let a = (s.x * v.y - t.x * u.y) * inv
        let b = (t.x * u.x - s.x * v.x) * inv
        let d = (s.y * v.y - t.y * u.y) * inv
        let e = (t.y * u.x - s.y * v.x) * inv
        return Affine2(a: a, b: b, c: q0.x - a * p0.x - b * p0.y, d: d, e: e, f: q0.y - d * p0.x - e * p0.y)
    }
}
