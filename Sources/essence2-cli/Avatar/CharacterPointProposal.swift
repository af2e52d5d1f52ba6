import Essence2Runtime
import Essence2Authoring

/// The character point finder's proposal for a picture, and whether it is sure of it.
struct CharacterPointProposal {
    var points: CharacterPoints
    /// Why the finder is not sure; nil when it is.
    var doubt: String?
    var confidence: Float
    /// Which finder gave the points, for the avatar's info and the rig editor's note.
    var finder = "essence2's character point finder"
    var confidenceText: String { String(Double((confidence * 100).rounded()) / 100) }

    /// Runs `CharacterPointFinder` (the trained network, embedded in the command): its points, and a doubt when its
    /// confidence is under `CharacterPointFinder.lowConfidence`. When it is not sure and the picture holds one
    /// human-like face that Face Mesh is sure of (a clown, a caricature: `faceMesh`), Face Mesh's points instead.
    static func propose(bgr: [UInt8], alpha: [UInt8]?, width: Int, height: Int) throws -> CharacterPointProposal {
        let network = try networkProposal(bgr: bgr, alpha: alpha, width: width, height: height)
        guard network.doubt != nil, let mesh = faceMesh(bgr: bgr, width: width, height: height),
              mesh.confidence >= CharacterPointFinder.lowConfidence else { return network }
        return mesh
    }

    /// `p` inside a `width` x `height` picture (a non-finite coordinate becomes 0).
    static func clamped(_ p: SIMD2<Float>, width: Int, height: Int) -> SIMD2<Float> {
        SIMD2(min(max(p.x.isFinite ? p.x : 0, 0), Float(width)), min(max(p.y.isFinite ? p.y : 0, 0), Float(height)))
    }

    /// The trained network's proposal alone.
    static func networkProposal(bgr: [UInt8], alpha: [UInt8]?, width: Int, height: Int) throws -> CharacterPointProposal {
        let finding: CharacterFinding
        do {
            finding = try CharacterPointFinder.find(bgr: bgr, alpha: alpha, width: width, height: height)
        } catch {
            throw CLIError("the character point finder could not read the picture (\(error)); give the points with "
                + "--points FILE.json or place them in the rig editor: essence2 avatar rig PICTURE")
        }
        let found = finding.points
        func inside(_ p: SIMD2<Float>) -> SIMD2<Float> { clamped(p, width: width, height: height) }
        var left = inside(found.leftEye), right = inside(found.rightEye)
        if right.x - left.x < 2 { (left, right) = (SIMD2(min(left.x, right.x), left.y), SIMD2(max(left.x, right.x) + 2, right.y)) }
        var mouthLeft = inside(found.mouthLeft), mouthRight = inside(found.mouthRight)
        if mouthRight.x - mouthLeft.x < 2 { mouthRight.x = min(Float(width), mouthLeft.x + 2); mouthLeft.x = mouthRight.x - 2 }
        let outline = found.outline.count >= 3 ? found.outline.map(inside) : []
        var points = CharacterPoints(
            leftEye: left, rightEye: right,
            leftEyeRadius: found.leftEyeRadius.flatMap { $0.isFinite && $0 > 0.5 ? $0 : nil },
            rightEyeRadius: found.rightEyeRadius.flatMap { $0.isFinite && $0 > 0.5 ? $0 : nil },
            mouthLeft: mouthLeft, mouthRight: mouthRight, mouthCenter: inside(found.mouthCenter),
            leftBrow: found.leftBrow.map(inside), rightBrow: found.rightBrow.map(inside), mouth: found.mouth,
            outline: outline)
        // A found open mouth must show an opening in the picture (a filled closed mouth reads as open).
        points.mouth = CharacterAvatarBuilder.confirmedMouth(points, runnerUp: finding.mouthRunnerUp, bgr: bgr, alpha: alpha,
                                                             width: width, height: height)
        let confidence = finding.confidence.isFinite ? finding.confidence : 0
        let doubt = confidence < CharacterPointFinder.lowConfidence
            ? "confidence \(String(Double((confidence * 100).rounded()) / 100)), under \(CharacterPointFinder.lowConfidence)" : nil
        return CharacterPointProposal(points: points, doubt: doubt, confidence: confidence)
    }
}
