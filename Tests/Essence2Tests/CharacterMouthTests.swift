import Testing
@testable import Essence2Runtime
@testable import Essence2Authoring

/// A found mouth state is checked against the picture before the avatar is built
/// (`CharacterAvatarBuilder.confirmedMouth`).
@Suite struct CharacterMouthTests {
    static func confirmed(_ drawn: DrawnCharacter, found: CharacterRig.MouthStyle, runnerUp: CharacterRig.MouthStyle,
                          opening: Float? = nil) -> CharacterRig.MouthStyle {
        var points = drawn.points
        points.mouth = found
        points.mouthOpening = opening
        return CharacterAvatarBuilder.confirmedMouth(points, runnerUp: runnerUp, bgr: drawn.bgr, alpha: drawn.alpha,
                                                     width: drawn.width, height: drawn.height)
    }

    /// Filled lips with the line between them, read as open by the finder, are built as the runner-up (closed
    /// or absent): built open, the lips would be painted over at rest.
    @Test func filledClosedLipsFoundOpenAreBuiltAsTheRunnerUp() {
        let lips = DrawnCharacter(mouth: .closed, filledLips: true)
        #expect(Self.confirmed(lips, found: .open, runnerUp: .closed) == .closed)
        #expect(Self.confirmed(lips, found: .open, runnerUp: .absent) == .absent)
        #expect(Self.confirmed(lips, found: .open, runnerUp: .open) == .closed, "never open twice")
        let line = DrawnCharacter(mouth: .closed)
        #expect(Self.confirmed(line, found: .open, runnerUp: .closed) == .closed)
        let none = DrawnCharacter(mouth: .absent)
        #expect(Self.confirmed(none, found: .open, runnerUp: .absent) == .absent)
    }

    /// A drawn opening (a cavity 30 pixels high in a mouth 80 wide) bears out an open mouth, found at its centre
    /// or at its upper edge.
    @Test func aDrawnOpeningKeepsAFoundOpenMouth() {
        var open = DrawnCharacter(mouth: .open)
        open.points.mouthCenter = SIMD2(180, 275)
        #expect(Self.confirmed(open, found: .open, runnerUp: .closed) == .open)
        open.points.mouthCenter = SIMD2(180, 262)
        #expect(Self.confirmed(open, found: .open, runnerUp: .closed) == .open)
    }

    /// Only a found open mouth is checked: closed and absent stay, and so does an open mouth with a given
    /// opening (the user's word).
    @Test func otherStatesAndAGivenOpeningAreKept() {
        let lips = DrawnCharacter(mouth: .closed, filledLips: true)
        #expect(Self.confirmed(lips, found: .closed, runnerUp: .open) == .closed)
        #expect(Self.confirmed(lips, found: .absent, runnerUp: .open) == .absent)
        #expect(Self.confirmed(lips, found: .open, runnerUp: .closed, opening: 12) == .open)
    }

    /// Points that make no mouth (corners crossed, non-finite) or a picture of the wrong size give the runner-up,
    /// never a trap.
    @Test func degeneratePointsAndPicturesGiveTheRunnerUp() {
        var drawn = DrawnCharacter(mouth: .open)
        drawn.points.mouthRight = drawn.points.mouthLeft
        #expect(Self.confirmed(drawn, found: .open, runnerUp: .closed) == .closed)
        drawn = DrawnCharacter(mouth: .open)
        drawn.points.mouthCenter = SIMD2(.nan, 270)
        #expect(Self.confirmed(drawn, found: .open, runnerUp: .absent) == .absent)
        drawn = DrawnCharacter(mouth: .open)
        drawn.bgr.removeLast(3)
        #expect(Self.confirmed(drawn, found: .open, runnerUp: .closed) == .closed)
    }
}
