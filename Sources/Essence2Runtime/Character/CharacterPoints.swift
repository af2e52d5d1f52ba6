/// The points of a character's face (Expression 2 avatars: cartoon heads, animals, mascots, plush toys, drawings),
/// x right, y down, "left" the picture's left: what the point finder proposes, the rig editor saves,
/// `--points FILE.json` gives (in the source picture's pixels) and a character `.imx`'s rig holds (in the frame's
/// pixels, `CharacterRig`). One JSON coding for all of them: `CharacterPoints+JSON.swift`.
package struct CharacterPoints: Sendable, Equatable {
    /// How the mouth is drawn in the picture.
    package enum MouthStyle: String, Sendable, CaseIterable {
        /// Drawn open (a visible opening, which the engine closes and opens).
        case open
        /// Drawn closed (a line or a smile curve, which the engine parts).
        case closed
        /// Not drawn (the engine draws a mouth where one would be, only while it opens).
        case absent
    }

    /// Centres of the eyes.
    package var leftEye: SIMD2<Float>
    package var rightEye: SIMD2<Float>
    /// Eye radii (half the eye's height, about); nil: measured from the picture when the avatar is built.
    package var leftEyeRadius: Float?
    package var rightEyeRadius: Float?
    /// The mouth's corners.
    package var mouthLeft: SIMD2<Float>
    package var mouthRight: SIMD2<Float>
    /// The centre of the lip line (of the opening, when drawn open; where a mouth would be, when absent).
    package var mouthCenter: SIMD2<Float>
    /// Centres of the brows, nil when the character has none.
    package var leftBrow: SIMD2<Float>?
    package var rightBrow: SIMD2<Float>?
    package var mouth: MouthStyle
    /// Height of a drawn-open mouth's opening at its centre; nil: measured from the picture.
    package var mouthOpening: Float?
    /// The head's outline, a closed polygon (what moves with the head); empty: the picture's opaque part (or an
    /// ellipse around the features) when the avatar is built.
    package var outline: [SIMD2<Float>]

    package init(leftEye: SIMD2<Float>, rightEye: SIMD2<Float>, leftEyeRadius: Float? = nil, rightEyeRadius: Float? = nil,
                 mouthLeft: SIMD2<Float>, mouthRight: SIMD2<Float>, mouthCenter: SIMD2<Float>,
                 leftBrow: SIMD2<Float>? = nil, rightBrow: SIMD2<Float>? = nil, mouth: MouthStyle,
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

    /// Most points in a head outline.
    package static let maxOutlinePoints = 256

    /// The distance between the eyes.
    package var eyeDistance: Float {
        let d = rightEye - leftEye
        return (d.x * d.x + d.y * d.y).squareRoot()
    }

    /// The named points in a fixed order (brows only where there are any), with their JSON keys.
    package var namedPoints: [(name: String, point: SIMD2<Float>)] {
        var list: [(String, SIMD2<Float>)] = [
            ("left_eye", leftEye), ("right_eye", rightEye),
            ("mouth_left", mouthLeft), ("mouth_right", mouthRight), ("mouth_center", mouthCenter),
        ]
        if let leftBrow { list.append(("left_brow", leftBrow)) }
        if let rightBrow { list.append(("right_brow", rightBrow)) }
        return list
    }
}
