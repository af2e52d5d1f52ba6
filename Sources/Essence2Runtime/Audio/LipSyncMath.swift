/// Small numeric helpers of the lip-sync analysis.
enum LipSyncMath {
    /// 0 below `edge0`, 1 above `edge1`, a smooth cubic between (the edges differ).
    @inline(__always)
    static func smoothstep(_ x: Float, _ edge0: Float, _ edge1: Float) -> Float {
        let t = min(max((x - edge0) / (edge1 - edge0), 0), 1)
        return t * t * (3 - 2 * t)
    }
}
