/// The rig of a character avatar (Expression 2): its points in output-frame pixels (x right, y down; "left" is
/// the picture's left), with the eye radii and the mouth opening always given, and where the frame came from in
/// the source picture. The points' members are at hand on the rig too (`rig.leftEye` is `rig.points.leftEye`).
package struct CharacterRig: Sendable, Equatable {
    /// How the mouth is drawn in the picture.
    package typealias MouthStyle = CharacterPoints.MouthStyle

    /// The points in frame pixels; `leftEyeRadius`, `rightEyeRadius` and `mouthOpening` are never nil.
    package var points: CharacterPoints
    /// Where the frame came from: frame point = source point * `sourceScale` + `sourceOffset`.
    package var sourceWidth: Int
    package var sourceHeight: Int
    package var sourceScale: Float
    package var sourceOffset: SIMD2<Float>

    package init(leftEye: SIMD2<Float>, rightEye: SIMD2<Float>, leftEyeRadius: Float, rightEyeRadius: Float,
                 mouthLeft: SIMD2<Float>, mouthRight: SIMD2<Float>, mouthCenter: SIMD2<Float>,
                 leftBrow: SIMD2<Float>?, rightBrow: SIMD2<Float>?, mouth: MouthStyle, mouthOpening: Float,
                 outline: [SIMD2<Float>], sourceWidth: Int, sourceHeight: Int, sourceScale: Float,
                 sourceOffset: SIMD2<Float>) {
        self.init(
            points: CharacterPoints(
                leftEye: leftEye, rightEye: rightEye, leftEyeRadius: leftEyeRadius, rightEyeRadius: rightEyeRadius,
                mouthLeft: mouthLeft, mouthRight: mouthRight, mouthCenter: mouthCenter, leftBrow: leftBrow,
                rightBrow: rightBrow, mouth: mouth, mouthOpening: mouthOpening, outline: outline),
            sourceWidth: sourceWidth, sourceHeight: sourceHeight, sourceScale: sourceScale, sourceOffset: sourceOffset)
    }

    /// A rig of `points` in frame pixels (nil radii and opening read as 0, which `validationProblem` refuses for the
    /// radii) placed from a `sourceWidth` x `sourceHeight` picture.
    package init(points: CharacterPoints, sourceWidth: Int, sourceHeight: Int, sourceScale: Float, sourceOffset: SIMD2<Float>) {
        self.points = points
        self.points.leftEyeRadius = points.leftEyeRadius ?? 0
        self.points.rightEyeRadius = points.rightEyeRadius ?? 0
        self.points.mouthOpening = points.mouthOpening ?? 0
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.sourceScale = sourceScale
        self.sourceOffset = sourceOffset
    }

    /// Most points in the head outline.
    package static let maxOutlinePoints = CharacterPoints.maxOutlinePoints

    /// Eye centres.
    package var leftEye: SIMD2<Float> { points.leftEye }
    package var rightEye: SIMD2<Float> { points.rightEye }
    /// Eye radii in pixels (half the eye's height, about).
    package var leftEyeRadius: Float { points.leftEyeRadius ?? 0 }
    package var rightEyeRadius: Float { points.rightEyeRadius ?? 0 }
    /// The mouth's corners and the centre of its lip line.
    package var mouthLeft: SIMD2<Float> { points.mouthLeft }
    package var mouthRight: SIMD2<Float> { points.mouthRight }
    package var mouthCenter: SIMD2<Float> { points.mouthCenter }
    /// Brow centres, nil when the character has none.
    package var leftBrow: SIMD2<Float>? { points.leftBrow }
    package var rightBrow: SIMD2<Float>? { points.rightBrow }
    /// How the mouth is drawn.
    package var mouth: MouthStyle { points.mouth }
    /// Height of a drawn-open mouth's opening at its centre, in pixels (0 when closed or absent).
    package var mouthOpening: Float { points.mouthOpening ?? 0 }
    /// The head's outline, a closed polygon (at least 3 points): what moves with the head.
    package var outline: [SIMD2<Float>] { points.outline }
    /// The named points in a fixed order, with their JSON keys.
    package var namedPoints: [(name: String, point: SIMD2<Float>)] { points.namedPoints }
    /// The distance between the eyes, in frame pixels.
    package var eyeDistance: Float { points.eyeDistance }

    /// A frame point in the source picture's pixels.
    package func sourcePoint(_ p: SIMD2<Float>) -> SIMD2<Float> {
        (p - sourceOffset) / sourceScale
    }
}
