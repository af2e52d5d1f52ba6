import Essence2Runtime

/// A character's points in its source picture's pixels ("left" is the picture's left): what the point finder
/// proposes, the rig editor saves and `--points FILE.json` gives.
package struct CharacterSourcePoints: Sendable, Equatable {
    package var leftEye: SIMD2<Float>
    package var rightEye: SIMD2<Float>
    package var leftEyeRadius: Float?
    package var rightEyeRadius: Float?
    package var mouthLeft: SIMD2<Float>
    package var mouthRight: SIMD2<Float>
    package var mouthCenter: SIMD2<Float>
    package var leftBrow: SIMD2<Float>?
    package var rightBrow: SIMD2<Float>?
    package var mouth: CharacterRig.MouthStyle
    /// Height of a drawn-open mouth's opening; nil: measured from the picture.
    package var mouthOpening: Float?
    /// The head's outline; nil or empty: the picture's opaque part (or an ellipse around the features).
    package var outline: [SIMD2<Float>]

    package init(leftEye: SIMD2<Float>, rightEye: SIMD2<Float>, leftEyeRadius: Float? = nil, rightEyeRadius: Float? = nil,
                 mouthLeft: SIMD2<Float>, mouthRight: SIMD2<Float>, mouthCenter: SIMD2<Float>,
                 leftBrow: SIMD2<Float>? = nil, rightBrow: SIMD2<Float>? = nil, mouth: CharacterRig.MouthStyle,
                 mouthOpening: Float? = nil, outline: [SIMD2<Float>] = []) {
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
    }

    /// The distance between the eyes.
    package var eyeDistance: Float {
        let d = rightEye - leftEye
        return (d.x * d.x + d.y * d.y).squareRoot()
    }
}
