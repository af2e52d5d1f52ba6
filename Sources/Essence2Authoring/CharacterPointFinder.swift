import Essence2Runtime
/// Finds the eyes, mouth, brows and head outline of a character (Expression 2 avatars: cartoon heads, animals,
/// mascots, plush toys, drawings), where human face detectors fail. A small CNN (tools/character: trained only on
/// characters our own generator draws; weights embedded from Sources/CCharacterWeights) finds the points on a
/// 96 x 96 crop (R, G, B composited over white, and alpha), each point the soft-argmax of its own heatmap:
///
/// 1. the whole picture, letterboxed into a square (outside the picture is transparent): a first guess of the
///    head's outline, whose box places
/// 2. squares of 1.3, 1.6 and 2 times the head's size around the head, each run as it is and mirrored (the
///    mirrored pass's points mirrored back, left and right swapped); the plain passes are averaged, the mirrored
///    ones too, and the two averages averaged; this is done `refinements` times, each time around the previous
///    outline.
///
/// Confidence: `character * agreement`, where `character` is the network's probability that the crop holds a
/// character face (it was trained with pictures without one), and `agreement = clamp(1 - d / agreementScale, 0, 1)`
/// with `d` the larger of two distances over the eye distance, both on the last refinement's eye and mouth points:
/// between the plain and the mirrored average, and the farthest any of the six passes (three crops, plain and
/// mirrored) lies from their mean. A face the network sees clearly gives the same points both ways round and at
/// every crop size. Below `lowConfidence` the caller should say that the points are a guess and point the user at
/// the rig editor.
///
/// Then the eyes and the mouth's corners and centre are each looked at again up close (`refine`, a second small
/// network of its own on a crop of 1.6 eye distances around each point); the confidence is the passes' above.
package enum CharacterPointFinder {
    /// Below this confidence the points are a guess: say so, and offer the rig editor.
    package static let lowConfidence: Float = 0.5
    /// Head crop sides / the head outline's larger side (tools/character/common.py HEAD_CROPS).
    static let headCrops: [Float] = [1.3, 1.6, 2.0]
    static let refinements = 2
    /// The distance (in eye distances) at which the passes' disagreement makes the confidence 0; at half of it
    /// the confidence is half the character probability, the `lowConfidence` line (tools/character/README.md: how
    /// it was chosen on drawn characters).
    static let agreementScale: Float = 0.42

    /// The points of the character in a picture of `width` x `height` pixels: `bgr` 3 bytes a pixel (blue, green,
    /// red), `alpha` one byte a pixel (255 opaque) or nil for an opaque picture. Throws `badPicture` when the
    /// buffers do not match the size, `badWeights` when the embedded weights cannot be read.
    package static func find(bgr: [UInt8], alpha: [UInt8]?, width: Int, height: Int) throws -> CharacterFinding {
        let network = try CharacterNetwork.embedded.get()
        let refiner = try CharacterNetwork.embeddedRefiner.get()
        return try find(bgr: bgr, alpha: alpha, width: width, height: height, network: network, refiner: refiner)
    }

    /// The points found by `network`, then refined by `refiner` when one is given (nil: the network's points).
    package static func find(bgr: [UInt8], alpha: [UInt8]?, width: Int, height: Int,
                             network: CharacterNetwork, refiner: CharacterNetwork? = nil) throws -> CharacterFinding {
        let picture = try checkedPicture(bgr: bgr, alpha: alpha, width: width, height: height)
        // Pass 1: the whole picture.
        let side = Float(max(width, height))
        var box = Box(x0: (Float(width) - side) / 2, y0: (Float(height) - side) / 2, side: side)
        var result = Output(network.run(crop(picture, box, size: network.size, mirrored: false)), box: box)
        var disagreement: Float = 0, spread: Float = 0
        for _ in 0..<refinements {
            var plains: [Output] = [], mirroreds: [Output] = []
            for scale in headCrops {
                box = headBox(result.outline, scale: scale)
                plains.append(Output(network.run(crop(picture, box, size: network.size, mirrored: false)), box: box))
                let mirroredRaw = network.run(crop(picture, box, size: network.size, mirrored: true))
                mirroreds.append(Output(unmirror(mirroredRaw), box: box))
            }
            let plain = Output.mean(plains), mirrored = Output.mean(mirroreds)
            result = Output.mean([plain, mirrored])
            let eyeDistance = max(1e-3, simd_length(result.points[1] - result.points[0]))
            disagreement = (0..<5).map { simd_length(plain.points[$0] - mirrored.points[$0]) }.max()! / eyeDistance
            spread = (plains + mirroreds).map { pass in
                (0..<5).map { simd_length(pass.points[$0] - result.points[$0]) }.max()!
            }.max()! / eyeDistance
        }
        let agreement = min(1, max(0, 1 - max(disagreement, spread) / agreementScale))
        if let refiner {
            result.points = refine(picture, result.points, refiner: refiner)
        }
        return result.characterPoints(confidence: result.character * agreement)
    }

    // MARK: - Crops

    struct Box {
        var x0, y0, side: Float
    }

    private static func headBox(_ outline: [SIMD2<Float>], scale: Float) -> Box {
        let (lo, hi) = bounds(outline) ?? (.zero, .zero)
        let c = (lo + hi) / 2
        let side = max(4, scale * max(hi.x - lo.x, hi.y - lo.y))
        return Box(x0: c.x - side / 2, y0: c.y - side / 2, side: side)
    }

    /// The corners of the box around `points` (lowest x and y, highest x and y); nil when there are none.
    static func bounds(_ points: [SIMD2<Float>]) -> (lo: SIMD2<Float>, hi: SIMD2<Float>)? {
        guard var lo = points.first else { return nil }
        var hi = lo
        for p in points {
            lo = simd_min(lo, p)
            hi = simd_max(hi, p)
        }
        return (lo, hi)
    }

    struct Picture {
        var bgr: [UInt8]
        var alpha: [UInt8]?
        var width, height: Int
    }

    // MARK: - Outputs

    /// The outputs of a mirrored crop as those of the plain crop: x -> 1 - x, left and right swapped, the outline
    /// re-ordered (tools/character/common.py mirror_vector).
    static func unmirror(_ v: [Float]) -> [Float] {
        var m = v
        func x(_ i: Int) -> Float { 1 - v[2 * i] }
        for (a, b) in [(0, 1), (2, 3), (5, 6)] {
            m[2 * a] = x(b); m[2 * a + 1] = v[2 * b + 1]
            m[2 * b] = x(a); m[2 * b + 1] = v[2 * a + 1]
        }
        m[8] = x(4); m[9] = v[9]
        m[14] = v[15]; m[15] = v[14]
        for i in 0..<16 {
            let j = (16 - i) % 16
            m[16 + 2 * i] = 1 - v[16 + 2 * j]
            m[17 + 2 * i] = v[17 + 2 * j]
        }
        return m
    }

    /// The network's outputs for one crop, in picture pixels.
    struct Output {
        /// left eye, right eye, mouth left, mouth right, mouth centre, left brow, right brow.
        var points: [SIMD2<Float>]
        var radii: SIMD2<Float>
        var outline: [SIMD2<Float>]
        var mouthLogits: SIMD3<Float>
        var browsLogit: Float
        var characterLogit: Float

        init(_ v: [Float], box: Box) {
            func p(_ i: Int) -> SIMD2<Float> { SIMD2(box.x0 + v[2 * i] * box.side, box.y0 + v[2 * i + 1] * box.side) }
            points = (0..<7).map(p)
            radii = SIMD2(max(0.5, v[14] / 10 * box.side), max(0.5, v[15] / 10 * box.side))
            outline = (8..<24).map(p)
            mouthLogits = SIMD3(v[48], v[49], v[50])
            browsLogit = v[51]
            characterLogit = v[52]
        }

        /// The mean of one or more outputs, field by field.
        static func mean(_ outputs: [Output]) -> Output {
            var r = outputs[0]
            for o in outputs.dropFirst() {
                r.points = zip(r.points, o.points).map { $0 + $1 }
                r.radii += o.radii
                r.outline = zip(r.outline, o.outline).map { $0 + $1 }
                r.mouthLogits += o.mouthLogits
                r.browsLogit += o.browsLogit
                r.characterLogit += o.characterLogit
            }
            let n = Float(outputs.count)
            r.points = r.points.map { $0 / n }
            r.radii /= n
            r.outline = r.outline.map { $0 / n }
            r.mouthLogits /= n
            r.browsLogit /= n
            r.characterLogit /= n
            return r
        }

        var character: Float { 1 / (1 + _exp(-characterLogit)) }

        func characterPoints(confidence: Float) -> CharacterFinding {
            let states: [CharacterPoints.MouthStyle] = [.open, .closed, .absent]
            var best = 0
            for i in 1..<3 where mouthLogits[i] > mouthLogits[best] { best = i }
            var second = best == 0 ? 1 : 0
            for i in 0..<3 where i != best && mouthLogits[i] > mouthLogits[second] { second = i }
            let brows = browsLogit > 0
            let found = CharacterPoints(leftEye: points[0], rightEye: points[1], leftEyeRadius: radii.x,
                                        rightEyeRadius: radii.y, mouthLeft: points[2], mouthRight: points[3],
                                        mouthCenter: points[4], leftBrow: brows ? points[5] : nil,
                                        rightBrow: brows ? points[6] : nil, mouth: states[best], outline: outline)
            return CharacterFinding(points: found, mouthRunnerUp: states[second],
                                    confidence: max(0, min(1, confidence.isFinite ? confidence : 0)))
        }
    }
}

func simd_length(_ v: SIMD2<Float>) -> Float { (v * v).sum().squareRoot() }
private func simd_min(_ a: SIMD2<Float>, _ b: SIMD2<Float>) -> SIMD2<Float> { pointwiseMin(a, b) }
private func simd_max(_ a: SIMD2<Float>, _ b: SIMD2<Float>) -> SIMD2<Float> { pointwiseMax(a, b) }
/// exp without Foundation (the finder's logistic and the heads' soft-argmax).
func _exp(_ x: Float) -> Float {
    // exp without Foundation: 2^(x log2 e) by range reduction and a short polynomial (relative error < 1e-6).
    let t = max(-80, min(80, x)) * 1.442_695_04
    let n = t.rounded(.down)
    let f = (t - n) * 0.693_147_18
    var p: Float = 1 + f * (1 + f * (0.5 + f * (1.0 / 6 + f * (1.0 / 24 + f * (1.0 / 120 + f / 720)))))
    p *= Float(sign: .plus, exponent: Int(n), significand: 1)
    return p
}
