@testable import Essence2Runtime
@testable import Essence2Authoring

/// A character drawn by the tests themselves, with its points known exactly: a round head in a given colour
/// with a dark outline, two eyes (white with dark pupils), brows, and a mouth drawn closed (a line), on a
/// transparent background.
struct DrawnCharacter {
    var width = 360
    var height = 400
    var skin: SIMD3<UInt8> = SIMD3(90, 170, 230)  // B,G,R: an orange head
    var bgr: [UInt8] = []
    var alpha: [UInt8] = []
    var points: CharacterPoints

    /// - Parameters:
    ///   - mouth: how the mouth is drawn: open (a cavity and a tongue inside red lips), closed or absent.
    ///   - filledLips: a closed mouth drawn as filled red lips (the upper 4 and the lower 5 pixels high at the
    ///     middle beyond the 4-pixel line between them: about 0.17 of the mouth's width, as the lips of
    ///     `head2` of the development characters) instead of the line alone.
    init(mouth: CharacterRig.MouthStyle = .closed, filledLips: Bool = false) {
        let cx: Float = 180, cy: Float = 200, r: Float = 150
        points = CharacterPoints(
            leftEye: SIMD2(130, 170), rightEye: SIMD2(230, 170), leftEyeRadius: 18, rightEyeRadius: 18,
            mouthLeft: SIMD2(140, 265), mouthRight: SIMD2(220, 265), mouthCenter: SIMD2(180, 268),
            leftBrow: SIMD2(130, 135), rightBrow: SIMD2(230, 135), mouth: mouth)
        bgr = [UInt8](repeating: 255, count: width * height * 3)
        alpha = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let p = SIMD2(Float(x) + 0.5, Float(y) + 0.5)
                let d = p - SIMD2(cx, cy)
                let distance = (d.x * d.x + d.y * d.y).squareRoot()
                guard distance <= r else { continue }
                var c = distance > r - 5 ? SIMD3<UInt8>(20, 20, 30) : skin
                for eye in [points.leftEye, points.rightEye] {
                    let e = p - eye
                    let de = (e.x * e.x + e.y * e.y).squareRoot()
                    if de <= 18 { c = de > 15 ? SIMD3(20, 20, 30) : SIMD3(250, 250, 250) }
                    if de <= 8 { c = SIMD3(25, 25, 30) }
                }
                for brow in [points.leftBrow!, points.rightBrow!] where abs(p.x - brow.x) < 20 && abs(p.y - brow.y) < 3 {
                    c = SIMD3(30, 40, 60)
                }
                if mouth == .open {
                    // The cavity: an ellipse about (180, 275), 40 by 15 half-axes, inside 3-pixel red lips.
                    let m = (p - SIMD2(180, 275)) / SIMD2(40, 15)
                    let r = (m.x * m.x + m.y * m.y).squareRoot()
                    if r <= 1 { c = p.y > 280 ? SIMD3(170, 140, 235) : SIMD3(40, 20, 30) }
                    else if (p - SIMD2(180, 275)).x.magnitude <= 43, r <= 1 + 3 / 15 { c = SIMD3(40, 40, 200) }
                } else if mouth != .absent, p.x >= 140, p.x <= 220 {
                    let t = (p.x - 180) / 40
                    let line = 265 + 3 * (1 - t * t)
                    let bulge = (1 - t * t).squareRoot()
                    if filledLips, p.y >= line - 6 * bulge, p.y <= line + 7 * bulge { c = SIMD3(50, 60, 200) }
                    if abs(p.y - line) < 2.2 { c = SIMD3(30, 30, 50) }
                }
                let i = y * width + x
                bgr[3 * i] = c.x
                bgr[3 * i + 1] = c.y
                bgr[3 * i + 2] = c.z
                alpha[i] = 255
            }
        }
    }

    /// The character's avatar at Expression 2's default size, or at `size`.
    func avatar(name: String = "drawn", size: (width: Int, height: Int) = CharacterAvatarBuilder.defaultSize) throws -> Avatar {
        try CharacterAvatarBuilder.build(name: name, bgr: bgr, alpha: alpha, width: width, height: height, points: points,
                                         size: size)
    }
}
