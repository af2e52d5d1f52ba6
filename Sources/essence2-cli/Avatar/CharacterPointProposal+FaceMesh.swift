import Essence2Runtime
import Essence2Vision
import Essence2Authoring

extension CharacterPointProposal {
    /// Face Mesh's eyes (their contours' centres), brows, mouth and face oval for a human-like character: a
    /// clown, a caricature, a painted or drawn person seen from the front. nil when the face models are not
    /// installed, the picture is too small, the detector finds no face or more than one (a portrait inside the
    /// picture would be taken for the character's face), or the landmark model doubts its face (presence under
    /// `minimumPresence`). Confidence: the landmark model's presence times the detector's score.
    static func faceMesh(bgr: [UInt8], width: Int, height: Int, models: String? = nil) -> CharacterPointProposal? {
        guard FaceAnalyzer.sizeProblem(width: width, height: height) == nil,
              var finder = try? FaceFinder(modelDirectory: models) else { return nil }
        let image = ImageBuffer(width: width, height: height, bgr: bgr)
        guard let faces = try? finder.faces(in: image), faces.count == 1,
              let result = try? finder.landmarks(in: image, face: faces[0]),
              result.presence >= minimumPresence, result.points.count == 468 else { return nil }
        let p = result.points.map { SIMD2<Float>($0.x, $0.y) }
        func mean(_ indices: [Int]) -> SIMD2<Float> { indices.reduce(SIMD2<Float>()) { $0 + p[$1] } / Float(indices.count) }
        func ordered(_ a: SIMD2<Float>, _ b: SIMD2<Float>) -> (SIMD2<Float>, SIMD2<Float>) { a.x <= b.x ? (a, b) : (b, a) }
        func length(_ v: SIMD2<Float>) -> Float { (v * v).sum().squareRoot() }

        // Face Mesh's "right" is the subject's own; the points' left is the picture's left.
        let (leftEye, rightEye) = ordered(mean(Self.rightEyeRing), mean(Self.leftEyeRing))
        let eyeDistance = length(rightEye - leftEye)
        guard eyeDistance.isFinite, eyeDistance > 2 else { return nil }
        let (mouthLeft, mouthRight) = ordered(p[61], p[291])
        let (leftBrow, rightBrow) = ordered(p[105], p[334])
        let radius = (length(p[133] - p[33]) + length(p[263] - p[362])) / 4
        let gap = length(p[14] - p[13])
        let outline = (0..<16).map { p[Self.faceOval[$0 * Self.faceOval.count / 16]] }
        func inside(_ q: SIMD2<Float>) -> SIMD2<Float> { clamped(q, width: width, height: height) }
        let points = CharacterPoints(
            leftEye: inside(leftEye), rightEye: inside(rightEye),
            leftEyeRadius: radius > 0.5 ? radius : nil, rightEyeRadius: radius > 0.5 ? radius : nil,
            mouthLeft: inside(mouthLeft), mouthRight: inside(mouthRight), mouthCenter: inside((p[13] + p[14]) / 2),
            leftBrow: inside(leftBrow), rightBrow: inside(rightBrow),
            mouth: gap / eyeDistance > openGap ? .open : .closed, outline: outline.map(inside))
        let confidence = result.presence * faces[0].score
        return CharacterPointProposal(points: points, doubt: nil, confidence: confidence,
                                      finder: "MediaPipe Face Mesh (a human-like face)")
    }

    /// The landmark model's presence under which its points are not used.
    static let minimumPresence: Float = 0.9
    /// An inner-lip gap over the eye distance above which the mouth is drawn open.
    static let openGap: Float = 0.06

    /// Face Mesh's contours (MediaPipe's FACEMESH_LEFT_EYE / RIGHT_EYE rings and FACE_OVAL, clockwise from the
    /// top of the forehead in the picture).
    static let leftEyeRing = [263, 249, 390, 373, 374, 380, 381, 382, 362, 398, 384, 385, 386, 387, 388, 466]
    static let rightEyeRing = [33, 7, 163, 144, 145, 153, 154, 155, 133, 173, 157, 158, 159, 160, 161, 246]
    static let faceOval = [10, 338, 297, 332, 284, 251, 389, 356, 454, 323, 361, 288, 397, 365, 379, 378, 400, 377,
                           152, 148, 176, 149, 150, 136, 172, 58, 132, 93, 234, 127, 162, 21, 54, 103, 67, 109]
}
