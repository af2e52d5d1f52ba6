import Essence2Runtime
/// The picture down the column through a found mouth's centre, and the face's colour around the mouth: what
/// `CharacterAvatarBuilder` measures a drawn mouth with (`measuredOpeningSpan`). Transparent
/// pixels are read over white.
struct MouthColumn {
    private let bgr: [UInt8]
    private let alpha: [UInt8]?
    private let width: Int, height: Int
    /// The centre, in whole source pixels.
    private let cx: Int, cy: Int
    /// How far from the centre a walk goes: 0.8 mouth widths.
    let limit: Int
    /// The face's colour: of three samples (above the mouth, beside each corner), the one nearest the other two.
    private let face: SIMD3<Float>

    /// Nil when the points make no mouth (a width under 2 pixels, a point not finite or far outside the picture)
    /// or the buffers are smaller than `width` x `height`.
    init?(points: CharacterPoints, bgr: [UInt8], alpha: [UInt8]?, width: Int, height: Int) {
        let mouthWidth = points.mouthRight.x - points.mouthLeft.x
        let c = points.mouthCenter
        let far = Float(1 << 24)
        guard width > 0, height > 0, bgr.count >= 3 * width * height, alpha.map({ $0.count >= width * height }) ?? true,
              mouthWidth.isFinite, mouthWidth >= 2, mouthWidth < far, c.x.isFinite, c.y.isFinite,
              abs(c.x) < far, abs(c.y) < far, abs(points.mouthLeft.x) < far, abs(points.mouthRight.x) < far
        else { return nil }
        (self.bgr, self.alpha, self.width, self.height) = (bgr, alpha, width, height)
        cx = Int(c.x)
        cy = Int(c.y)
        limit = Int(0.8 * mouthWidth)
        let samples = [Self.colour(bgr, alpha, width, height, cx, Int(c.y - 0.6 * mouthWidth)),
                       Self.colour(bgr, alpha, width, height, Int(points.mouthLeft.x - 0.2 * mouthWidth), cy),
                       Self.colour(bgr, alpha, width, height, Int(points.mouthRight.x + 0.2 * mouthWidth), cy)]
        face = samples.min { a, b in
            samples.reduce(0) { $0 + Self.distance(a, $1) } < samples.reduce(0) { $0 + Self.distance(b, $1) }
        }!
    }

    /// The column's colour `depth` pixels above (sign -1) or below (sign 1) the centre.
    func colour(depth: Int, _ sign: Int) -> SIMD3<Float> { Self.colour(bgr, alpha, width, height, cx, cy + sign * depth) }

    /// Whether the column `depth` pixels above (sign -1) or below (1) the centre has the face's colour.
    func likeFace(_ depth: Int, _ sign: Int) -> Bool { Self.distance(colour(depth: depth, sign), face) <= 45 }

    /// The sum of the channels' absolute differences.
    static func distance(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> Float {
        abs(a.x - b.x) + abs(a.y - b.y) + abs(a.z - b.z)
    }

    private static func colour(_ bgr: [UInt8], _ alpha: [UInt8]?, _ width: Int, _ height: Int,
                               _ x: Int, _ y: Int) -> SIMD3<Float> {
        let cx = min(max(x, 0), width - 1), cy = min(max(y, 0), height - 1)
        let i = 3 * (cy * width + cx)
        let c = SIMD3(Float(bgr[i]), Float(bgr[i + 1]), Float(bgr[i + 2]))
        guard let alpha else { return c }
        let a = Float(alpha[cy * width + cx]) / 255
        return c * a + SIMD3(repeating: 255 * (1 - a))
    }
}
