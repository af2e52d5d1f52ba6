/// One frame of a character, worked out from its `FrameParams`: the head's inverse motion, the features'
/// parallax, the brows' lift, the lids' closure, and the mouth's current and drawn openings.
struct CharacterFrame {
    /// Destination to source, for the head: rotation by -roll about the pivot after removing the shift.
    var cosRoll: Float
    var sinRoll: Float
    var shift: SIMD2<Float>
    /// Parallax of the inner features (source = destination - parallax, fading out from the features' centre).
    var parallax: SIMD2<Float>
    var browLift: Float
    var blink: Float
    /// Mouth: current upper and lower half-openings at the centre, the drawn ones, the width scale (spread > 1,
    /// rounded < 1), the tongue tip's rise, and whether anything about the mouth moves.
    var upper: Float
    var lower: Float
    var drawnUpper: Float
    var drawnLower: Float
    var widthScale: Float
    var tongue: Float
    var mouthMoves: Bool

    init(renderer r: CharacterRenderer, params: FrameParams) {
        let pose = params.pose
        let a = params.articulation.clamped()
        let s = r.headSize
        func finite(_ v: Float) -> Float { v.isFinite ? v : 0 }
        let roll = min(max(finite(pose.headRoll) * 0.7, -0.04), 0.04)
        cosRoll = cosf(roll)
        sinRoll = sinf(roll)
        let scale = s / 420
        let rawShift = SIMD2(finite(pose.headShift.x), finite(pose.headShift.y)) * scale
        let nod = min(max(finite(pose.headPitch), -1), 1)
        let breath = min(max(finite(pose.breath), -1), 1)
        shift = SIMD2(min(max(rawShift.x, -0.03 * s), 0.03 * s),
                      min(max(rawShift.y + nod * 0.006 * s + breath * 0.002 * s, -0.03 * s), 0.03 * s))
        let yaw = min(max(finite(pose.headYaw), -1), 1)
        parallax = SIMD2(yaw * 0.018 * s, nod * 0.01 * s)
        let rig = r.rig
        browLift = min(max(finite(pose.browRaise), 0), 1) * 0.55 * max(rig.leftEyeRadius, rig.rightEyeRadius, 0.04 * s)
        blink = min(max(finite(pose.blink), 0), 1)

        // The mouth: p/b/m seal it (press), the jaw opens it, spread widens and rounding narrows it.
        let w = 2 * r.halfWidth
        let sealed = 1 - smoothstep(0.25, 0.6, a.lipPress)
        let drawn = rig.mouthOpening
        // The lower lip goes down at most 45% of the jaw's reach (so the pull stays smooth and short of the
        // chin), and the whole opening at most 55% of the mouth's width.
        let maxOpen = max(min(0.55 * w, 0.45 * r.jawReach / 0.68), 1.2 * drawn)
        let jaw = clamp01((a.jawOpen - 0.03) / 0.6)
        let open = maxOpen * powf(jaw, 0.8) * sealed
        upper = 0.32 * open
        lower = 0.68 * open
        drawnUpper = 0.5 * drawn
        drawnLower = 0.5 * drawn
        widthScale = 1 + 0.1 * max(a.lipSpread, 0) + 0.2 * min(a.lipSpread, 0) * smoothstep(0, 0.3, a.jawOpen + 0.2)
        tongue = a.tongueTip
        mouthMoves = open > 0.25 || drawn > 0 || abs(widthScale - 1) > 0.005
    }
}

extension CharacterFrame {
    /// How far the head's motion moves any pixel this frame, in whole pixels, with the bilinear footprint.
    func headReach(_ r: CharacterRenderer) -> Int {
        let rollSine = abs(sinRoll) + (1 - cosRoll)
        return Int((abs(shift.x) + abs(shift.y) + rollSine * r.pivotReach + abs(parallax.x) + abs(parallax.y))
            .rounded(.up)) + 2
    }

    /// The frame pixels where this frame's eyes (blinking), brows (lifted) and mouth (moving) draw or move
    /// anything: their reach in the picture, grown by the head's motion; empty when none does.
    func featureArea(_ r: CharacterRenderer) -> PixelRect {
        var lo = SIMD2<Float>(Float.greatestFiniteMagnitude, Float.greatestFiniteMagnitude), hi = -lo
        func add(_ p: SIMD2<Float>) { lo = pointwiseMin(lo, p); hi = pointwiseMax(hi, p) }
        let rig = r.rig
        if mouthMoves {
            let hw = r.halfWidth
            let widthMatters = abs(widthScale - 1) > 0.004
            let reachX = (widthMatters ? 1.75 * hw : hw * max(widthScale, 1) + 1) + 1
            let bendReach = abs(r.bend) + 1
            let up = max(max(upper, drawnUpper) + 1.15 * hw, widthMatters ? 1.35 * hw : 0) + bendReach
            let down = max(lower, drawnLower) + max(r.jawReach, widthMatters ? 1.35 * hw : 0) + bendReach
            for sx in [-reachX, reachX] {
                for sy in [-up, down] { add(r.mouthMid + r.mouthAxis * sx + r.mouthNormal * sy) }
            }
        }
        if blink > 0.02 {
            for eye in r.eyes where eye.closes && eye.box.width > 0 {
                add(SIMD2(Float(eye.box.x), Float(eye.box.y)))
                add(SIMD2(Float(eye.box.maxX), Float(eye.box.maxY)))
            }
        }
        if browLift > 0.05 {
            let radius = max(0.3 * rig.eyeDistance, 3)
            let e = SIMD2<Float>(1.64 * radius, 1.27 * radius + browLift)
            for brow in [rig.leftBrow, rig.rightBrow].compactMap({ $0 }) {
                add(brow - e)
                add(brow + e)
            }
        }
        guard lo.x <= hi.x, lo.y <= hi.y else { return PixelRect(x: 0, y: 0, width: 0, height: 0) }
        let grow = Float(headReach(r))
        let x0 = max(0, min(r.width, Int((lo.x - grow).rounded(.down))))
        let y0 = max(0, min(r.height, Int((lo.y - grow).rounded(.down))))
        let x1 = max(x0, min(r.width, Int((hi.x + grow).rounded(.up))))
        let y1 = max(y0, min(r.height, Int((hi.y + grow).rounded(.up))))
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}

#if canImport(Glibc)
import Glibc
#endif
