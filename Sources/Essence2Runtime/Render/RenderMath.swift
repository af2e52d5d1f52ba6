/// Hermite smoothstep: 0 below `e0`, 1 above `e1`, smooth in between (reversed edges give the falling step).
@inline(__always)
func smoothstep(_ e0: Float, _ e1: Float, _ x: Float) -> Float {
    if e0 == e1 { return x < e0 ? 0 : 1 }
    let t = min(max((x - e0) / (e1 - e0), 0), 1)
    return t * t * (3 - 2 * t)
}

@inline(__always)
func clamp01(_ x: Float) -> Float { min(max(x, 0), 1) }

@inline(__always)
func length(_ v: SIMD2<Float>) -> Float { (v * v).sum().squareRoot() }

/// A finite value limited to `lo ... hi`; non-finite values become 0 (then limited).
@inline(__always)
func sanitized(_ v: Float, _ lo: Float, _ hi: Float) -> Float {
    v.isFinite ? min(max(v, lo), hi) : min(max(0, lo), hi)
}
