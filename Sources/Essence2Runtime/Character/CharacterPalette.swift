/// The colours a character's drawn parts take, read from its own picture: the mouth's line, cavity, tongue and
/// (for human-like faces) teeth, and the skin around each eye that its lids are drawn in.
struct CharacterPalette: Sendable {
    var line: SIMD3<Float>
    var cavity: SIMD3<Float>
    var tongue: SIMD3<Float>
    var teeth: SIMD3<Float>?
    var leftLid: SIMD3<Float>
    var rightLid: SIMD3<Float>

    /// Reads the palette from the frame `pixels` (B,G,R) around the rig's points.
    init(pixels: [UInt8], width: Int, height: Int, rig: CharacterRig) {
        func at(_ p: SIMD2<Float>) -> SIMD3<Float> {
            let x = min(max(Int(p.x), 0), width - 1), y = min(max(Int(p.y), 0), height - 1)
            let i = (y * width + x) * 3
            return SIMD3(Float(pixels[i]), Float(pixels[i + 1]), Float(pixels[i + 2]))
        }
        func luma(_ c: SIMD3<Float>) -> Float { 0.114 * c.x + 0.587 * c.y + 0.299 * c.z }
        func median(_ colours: [SIMD3<Float>]) -> SIMD3<Float> {
            guard !colours.isEmpty else { return SIMD3(200, 200, 200) }
            let sorted = colours.sorted { luma($0) < luma($1) }
            return sorted[sorted.count / 2]
        }
        func ring(_ centre: SIMD2<Float>, _ radius: Float) -> [SIMD3<Float>] {
            (0..<16).map { k in
                let a = Float(k) * Float.pi / 8
                return at(centre + radius * SIMD2(Float(cosf(a)), Float(sinf(a))))
            }
        }
        let mouthWidth = max(rig.mouthRight.x - rig.mouthLeft.x, 2)
        // Skin around the mouth: a ring well outside it, the lighter half (away from lines and the mouth itself).
        let around = ring(rig.mouthCenter, 0.75 * mouthWidth).sorted { luma($0) > luma($1) }
        let skin = median(Array(around.prefix(10)))
        // The line: the darkest pixel along the lip line (a drawn closed mouth), else the darkest of the
        // picture's lines around the eyes, else a darkened skin.
        var darkest = skin * 0.35
        var samples: [SIMD3<Float>] = []
        for k in 0...16 {
            let t = Float(k) / 16
            let p = rig.mouthLeft + (rig.mouthRight - rig.mouthLeft) * t
            let bend = (rig.mouthCenter - (rig.mouthLeft + rig.mouthRight) / 2) * (1 - (2 * t - 1) * (2 * t - 1))
            samples.append(at(p + bend))
        }
        for eye in [rig.leftEye, rig.rightEye] { samples += ring(eye, 1.15 * max(rig.leftEyeRadius, 1)) }
        if let d = samples.min(by: { luma($0) < luma($1) }), luma(d) < luma(skin) - 40 { darkest = d }
        line = darkest * 0.85 + skin * 0.15
        cavity = SIMD3<Float>(38, 28, 96) * 0.7 + line * 0.3
        tongue = SIMD3<Float>(112, 104, 214) * 0.8 + skin * 0.2
        // Teeth where the face reads as human skin (red over green over blue, light): cartoon people, not
        // animals, plush toys or creatures of other colours.
        let skinLike = skin.z > skin.y + 8 && skin.y > skin.x + 4 && skin.z - skin.x > 25 && skin.z - skin.x < 150
            && luma(skin) > 100 && luma(skin) < 235
        teeth = rig.mouth != .absent && skinLike ? SIMD3(232, 238, 244) : nil
        func lid(_ eye: SIMD2<Float>, _ r: Float) -> SIMD3<Float> {
            let outer = ring(eye, 1.7 * r) + ring(eye, 2.1 * r)
            return median(Array(outer.sorted { luma($0) > luma($1) }.prefix(outer.count * 2 / 3)))
        }
        leftLid = lid(rig.leftEye, rig.leftEyeRadius)
        rightLid = lid(rig.rightEye, rig.rightEyeRadius)
    }
}

#if canImport(Glibc)
import Glibc
#endif
