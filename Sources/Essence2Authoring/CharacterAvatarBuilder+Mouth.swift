import Essence2Runtime

extension CharacterAvatarBuilder {
    /// The smallest measured opening (`measuredOpeningSpan`, above and below together), over the mouth's width,
    /// that bears out a found open mouth.
    package static let confirmingOpening: Float = 0.25

    /// A found mouth state checked against the picture.
    ///
    /// The point finder reads some closed mouths as open (filled lips with the line between them, a bar: the
    /// open mouths of its drawings are filled shapes). Built as open, such a mouth is shut at rest by painting
    /// the face's colour over what `measuredOpeningSpan` measures: the lips. So a found open mouth is kept only
    /// when the opening measured at the found centre is at least `confirmingOpening` of the mouth's width;
    /// otherwise the finder's runner-up is used (closed or absent; closed when the runner-up is open). A thin
    /// measured opening is also one the builder could shut only in part, so little is lost when an open mouth
    /// found off its opening is built closed. Lips thicker than a quarter of the mouth's width, together, still
    /// read as open (a quarter since the refined corners: the alien's bar, 0.21 of its refined width, was built
    /// open with a fifth; tools/character/README.md). Other states, and an open mouth with a given opening height (the user's word,
    /// `mouthOpening`), are returned as they are; points that make no mouth give the runner-up.
    ///
    /// - Parameters:
    ///   - points: the found points, in source pixels.
    ///   - runnerUp: the finder's next choice (`CharacterPoints.mouthRunnerUp`).
    ///   - bgr: the picture, B,G,R, `width` x `height` (composited over white where `alpha` is given).
    ///   - alpha: the picture's alpha, `width` x `height`, or nil.
    package static func confirmedMouth(_ points: CharacterPoints, runnerUp: CharacterRig.MouthStyle,
                                       bgr: [UInt8], alpha: [UInt8]?, width: Int, height: Int) -> CharacterRig.MouthStyle {
        guard points.mouth == .open, points.mouthOpening == nil else { return points.mouth }
        let fallback: CharacterRig.MouthStyle = runnerUp == .open ? .closed : runnerUp
        let mouthWidth = points.mouthRight.x - points.mouthLeft.x
        guard mouthWidth.isFinite, mouthWidth >= 2 else { return fallback }
        // Points or a picture it cannot measure give (0, 0): no opening.
        let span = measuredOpeningSpan(points: points, bgr: bgr, alpha: alpha, width: width, height: height)
        return span.up + span.down >= confirmingOpening * mouthWidth ? .open : fallback
    }
}
