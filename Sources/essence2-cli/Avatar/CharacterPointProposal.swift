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
    /// Further faces in the picture (`CharacterPointFinder.faces`), largest first; empty unless asked for.
    var otherFaces: [CharacterPoints] = []
    var confidenceText: String { String(Double((confidence * 100).rounded()) / 100) }

    /// Runs `CharacterPointFinder` (the trained network, embedded in the command): its points, and a doubt when its
    /// confidence is under `CharacterPointFinder.lowConfidence`. When it is not sure and the picture holds one
    /// human-like face that Face Mesh is sure of (a clown, a caricature: `faceMesh`), Face Mesh's points instead.
    /// With `otherFaces`, the further faces the picture holds too (the rig editor offers them).
    static func propose(bgr: [UInt8], alpha: [UInt8]?, width: Int, height: Int, otherFaces: Bool = false) throws
        -> CharacterPointProposal {
        var network = try networkProposal(bgr: bgr, alpha: alpha, width: width, height: height, otherFaces: otherFaces)
        guard network.doubt != nil, let mesh = faceMesh(bgr: bgr, width: width, height: height),
              mesh.confidence >= CharacterPointFinder.lowConfidence else { return network }
        var chosen = mesh
        if otherFaces {  // the network's own answer becomes one of the faces offered
            network.otherFaces.insert(network.points, at: 0)
            chosen.otherFaces = network.otherFaces
        }
        return chosen
    }

    /// `p` inside a `width` x `height` picture (a non-finite coordinate becomes 0).
    static func clamped(_ p: SIMD2<Float>, width: Int, height: Int) -> SIMD2<Float> {
        SIMD2(min(max(p.x.isFinite ? p.x : 0, 0), Float(width)), min(max(p.y.isFinite ? p.y : 0, 0), Float(height)))
    }

    /// The trained network's proposal alone (with `otherFaces`, the further faces it finds too).
    static func networkProposal(bgr: [UInt8], alpha: [UInt8]?, width: Int, height: Int, otherFaces: Bool = false) throws
        -> CharacterPointProposal {
        let findings: [CharacterFinding]
        do {
            findings = otherFaces
                ? try CharacterPointFinder.faces(bgr: bgr, alpha: alpha, width: width, height: height)
                : [try CharacterPointFinder.find(bgr: bgr, alpha: alpha, width: width, height: height)]
        } catch {
            throw CLIError("the character point finder could not read the picture (\(error)); give the points with "
                + "--points FILE.json or place them in the rig editor: essence2 avatar rig PICTURE")
        }
        let finding = findings[0]
        let confidence = finding.confidence.isFinite ? finding.confidence : 0
        let doubt = confidence < CharacterPointFinder.lowConfidence
            ? "confidence \(String(Double((confidence * 100).rounded()) / 100)), under \(CharacterPointFinder.lowConfidence)" : nil
        var proposal = CharacterPointProposal(
            points: usable(finding, bgr: bgr, alpha: alpha, width: width, height: height), doubt: doubt,
            confidence: confidence)
        proposal.otherFaces = findings.dropFirst().map { usable($0, bgr: bgr, alpha: alpha, width: width, height: height) }
        return proposal
    }

    /// A finding's points made usable for a build: inside the picture, eyes and mouth corners at least 2 pixels
    /// apart, radii only where measured, and a found open mouth confirmed in the picture.
    private static func usable(_ finding: CharacterFinding, bgr: [UInt8], alpha: [UInt8]?, width: Int, height: Int)
        -> CharacterPoints {
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
        return points
    }
}
