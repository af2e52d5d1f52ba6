/// The rig of a character avatar (Expression 2): where its eyes, mouth, brows and head are in the frame, how
/// its mouth is drawn, and where the frame came from in the source picture. Points are in output-frame pixels
/// (x right, y down; "left" is the picture's left).
package struct CharacterRig: Sendable, Equatable {
    /// How the mouth is drawn in the picture.
    package enum MouthStyle: String, Sendable, CaseIterable {
        /// Drawn open (a visible opening, which the engine closes and opens).
        case open
        /// Drawn closed (a line or a smile curve, which the engine parts).
        case closed
        /// Not drawn (the engine draws a mouth where one would be, only while it opens).
        case absent
    }

    package var leftEye: SIMD2<Float>
    package var rightEye: SIMD2<Float>
    /// Eye radii in pixels (half the eye's height, about).
    package var leftEyeRadius: Float
    package var rightEyeRadius: Float
    package var mouthLeft: SIMD2<Float>
    package var mouthRight: SIMD2<Float>
    /// The centre of the lip line (of the opening, when drawn open; where a mouth would be, when absent).
    package var mouthCenter: SIMD2<Float>
    package var leftBrow: SIMD2<Float>?
    package var rightBrow: SIMD2<Float>?
    package var mouth: MouthStyle
    /// Height of a drawn-open mouth's opening at its centre, in pixels (0 when closed or absent).
    package var mouthOpening: Float
    /// The head's outline, a closed polygon (at least 3 points): what moves with the head.
    package var outline: [SIMD2<Float>]
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
        self.leftEye = leftEye
        self.rightEye = rightEye
        self.leftEyeRadius = leftEyeRadius
        self.rightEyeRadius = rightEyeRadius
        self.mouthLeft = mouthLeft
        self.mouthRight = mouthRight
        self.mouthCenter = mouthCenter
        self.leftBrow = leftBrow
        self.rightBrow = rightBrow
        self.mouth = mouth
        self.mouthOpening = mouthOpening
        self.outline = outline
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.sourceScale = sourceScale
        self.sourceOffset = sourceOffset
    }

    /// Most points in the head outline.
    package static let maxOutlinePoints = 256

    /// The named points, in output-frame pixels, in a fixed order (brows only where there are any).
    package var namedPoints: [(name: String, point: SIMD2<Float>)] {
        var list: [(String, SIMD2<Float>)] = [
            ("left_eye", leftEye), ("right_eye", rightEye),
            ("mouth_left", mouthLeft), ("mouth_right", mouthRight), ("mouth_center", mouthCenter),
        ]
        if let leftBrow { list.append(("left_brow", leftBrow)) }
        if let rightBrow { list.append(("right_brow", rightBrow)) }
        return list
    }

    /// A frame point in the source picture's pixels.
    package func sourcePoint(_ p: SIMD2<Float>) -> SIMD2<Float> {
        (p - sourceOffset) / sourceScale
    }

    /// The distance between the eyes, in frame pixels.
    package var eyeDistance: Float {
        let d = rightEye - leftEye
        return (d.x * d.x + d.y * d.y).squareRoot()
    }
}
