import Essence2Runtime

/// What `CharacterPointFinder` finds in a picture: the character's points in the picture's pixels (eye radii and
/// outline always given, the mouth opening left to the builder), the mouth's runner-up reading, and how sure it is.
package struct CharacterFinding: Sendable, Equatable {
    package var points: CharacterPoints
    /// The finder's next choice after `points.mouth` (never the same state): what the mouth is when the picture does
    /// not bear out `points.mouth` (`CharacterAvatarBuilder.confirmedMouth`).
    package var mouthRunnerUp: CharacterPoints.MouthStyle
    /// 0...1: how much to trust the points (CharacterPointFinder's documentation says how it is made). Below
    /// `CharacterPointFinder.lowConfidence` the caller should say so and point the user at the rig editor.
    package var confidence: Float

    /// A finding; a runner-up equal to the mouth (or nil) becomes the likeliest other state.
    package init(points: CharacterPoints, mouthRunnerUp: CharacterPoints.MouthStyle? = nil, confidence: Float) {
        self.points = points
        self.mouthRunnerUp = mouthRunnerUp.flatMap { $0 == points.mouth ? nil : $0 }
            ?? (points.mouth == .closed ? .absent : .closed)
        self.confidence = confidence
    }
}
