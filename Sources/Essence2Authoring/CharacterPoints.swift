import Essence2Runtime

/// The points of a character's face (Expression 2 avatars: cartoon heads, animals, mascots, plush toys, drawings),
/// in source picture pixels (x right, y down); "left" is the picture's left.
package struct CharacterPoints: Sendable, Equatable {
    /// Centres of the eyes.
    package var leftEye, rightEye: SIMD2<Float>
    /// Roughly half of each eye's height and width, in pixels.
    package var leftEyeRadius, rightEyeRadius: Float
    /// The mouth's corners, and the centre of its lip line (where a mouth would be when none is drawn).
    package var mouthLeft, mouthRight, mouthCenter: SIMD2<Float>
    /// Centres of the brows, nil when the character has none.
    package var leftBrow, rightBrow: SIMD2<Float>?
    /// Whether the mouth is drawn open, closed, or not at all.
    package var mouth: MouthState
    /// The finder's next choice after `mouth` (never the same state): what the mouth is when the picture does not
    /// bear out `mouth` (`CharacterAvatarBuilder.confirmedMouth`).
    package var mouthRunnerUp: MouthState
    /// The head's outline: 16 points clockwise on screen from the top (ears, hair and hats left out).
    package var outline: [SIMD2<Float>]
    /// 0...1: how much to trust the points (CharacterPointFinder's documentation says how it is made). Below
    /// `CharacterPointFinder.lowConfidence` the caller should say so and point the user at the rig editor.
    package var confidence: Float

    package init(leftEye: SIMD2<Float>, rightEye: SIMD2<Float>, leftEyeRadius: Float, rightEyeRadius: Float,
                 mouthLeft: SIMD2<Float>, mouthRight: SIMD2<Float>, mouthCenter: SIMD2<Float>,
                 leftBrow: SIMD2<Float>?, rightBrow: SIMD2<Float>?, mouth: MouthState,
                 mouthRunnerUp: MouthState? = nil, outline: [SIMD2<Float>], confidence: Float) {
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
        self.mouthRunnerUp = mouthRunnerUp.flatMap { $0 == mouth ? nil : $0 } ?? (mouth == .closed ? .absent : .closed)
        self.outline = outline
        self.confidence = confidence
    }

    /// How the mouth is drawn: the rig's own mouth style (open, closed, absent).
    package typealias MouthState = CharacterRig.MouthStyle
}
