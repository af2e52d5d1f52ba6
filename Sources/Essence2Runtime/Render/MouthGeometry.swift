/// The mouth of the portrait in its own frame: origin between the corners, x from the subject's right corner
/// to the left one, y down. Lip contours are functions of x (`PiecewiseLinear`).
struct MouthGeometry {
    var frame: LocalFrame
    /// Half the distance between the outer mouth corners, in pixels.
    var halfWidth: Float
    var upperOuter: PiecewiseLinear
    var lowerOuter: PiecewiseLinear
    var upperInner: PiecewiseLinear
    var lowerInner: PiecewiseLinear
    /// Lip opening of the portrait at x (0 for a closed mouth).
    var photographedGap: PiecewiseLinear
    /// Largest photographed opening, pixels.
    var photographedGapMax: Float

    init(points: [SIMD2<Float>]) {
        let right = points[MediaPipeFace.mouthCornerRight], left = points[MediaPipeFace.mouthCornerLeft]
        frame = LocalFrame(origin: (right + left) / 2, from: right, to: left)
        halfWidth = max(length(left - right) / 2, 2)
        let f = frame
        func curve(_ idx: [Int]) -> PiecewiseLinear { PiecewiseLinear(idx.map { f.local(points[$0]) }) }
        upperOuter = curve(MediaPipeFace.upperOuterLip)
        lowerOuter = curve(MediaPipeFace.lowerOuterLip)
        upperInner = curve(MediaPipeFace.upperInnerLip)
        lowerInner = curve(MediaPipeFace.lowerInnerLip)
        // The opening, sampled at every inner-lip x; openings under half a pixel count as closed.
        let xs = (MediaPipeFace.upperInnerLip + MediaPipeFace.lowerInnerLip).map { f.local(points[$0]).x }
        let ui = upperInner, li = lowerInner
        var gaps = xs.map { SIMD2($0, max(0, li($0) - ui($0))) }
        let gmax = gaps.map(\.y).max() ?? 0
        if gmax < 0.5 { gaps = gaps.map { SIMD2($0.x, 0) } }
        photographedGap = PiecewiseLinear(gaps)
        photographedGapMax = gmax < 0.5 ? 0 : gmax
    }

    /// On a closed-mouthed portrait, the tiny opening its inner lip outlines still have at x (landmark noise,
    /// under half a pixel) that counts as closed; 0 on a portrait photographed open.
    func closedSlack(_ x: Float) -> Float {
        photographedGapMax > 0 ? 0 : max(0, lowerInner(x) - upperInner(x))
    }
}
