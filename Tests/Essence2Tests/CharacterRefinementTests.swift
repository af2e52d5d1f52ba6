import Testing
@testable import Essence2Authoring

/// The finder's refinement pass (`CharacterPointFinder.refine`, tools/character/refine.py): each eye and mouth
/// point looked at again on a crop of 1.6 eye distances around it.
@Suite struct CharacterRefinementTests {
    /// Points a fifth of an eye distance off the truth (each in another direction, as the first passes miss)
    /// come back near it on the drawn fixtures (never trained on): every eye within 0.1 eye distances, and the
    /// points together closer than they were.
    @Test(arguments: CharacterFixture.names)
    func displacedPointsComeBackNearTheTruth(name: String) throws {
        let (fixture, truth) = try CharacterFixture.load(name)
        let picture = CharacterPointFinder.Picture(bgr: fixture.bgr, alpha: fixture.alpha, width: fixture.width,
                                                   height: fixture.height)
        let keys = ["left_eye", "right_eye", "mouth_left", "mouth_right", "mouth_center"]
        let points = try keys.map { try #require(CharacterFixture.point(truth[$0])) }
        let eyeDistance = simd_length(points[1] - points[0])
        let directions: [SIMD2<Float>] = [[0.8, 0.6], [-0.6, 0.8], [-0.8, -0.6], [0.6, -0.8], [0, 1]]
        let displaced = zip(points, directions).map { $0 + $1 * 0.2 * eyeDistance }
        let refiner = try CharacterNetwork.embeddedRefiner.get()
        let refined = CharacterPointFinder.refine(picture, displaced, refiner: refiner)
        #expect(refined.count == 5)
        let errors = zip(refined, points).map { simd_length($0 - $1) / eyeDistance }
        #expect(errors[0] <= 0.1 && errors[1] <= 0.1, "\(name): eyes \(errors[0]), \(errors[1]) eye distances")
        #expect(errors.reduce(0, +) / 5 < 0.2 * 0.6, "\(name): mean error \(errors.reduce(0, +) / 5)")
    }

    /// The brows (points past the fifth) are kept, and points that are not finite come back as they were,
    /// without a trap.
    @Test func browsKeptAndNonFinitePointsUnchanged() throws {
        let (fixture, truth) = try CharacterFixture.load(CharacterFixture.names[0])
        let picture = CharacterPointFinder.Picture(bgr: fixture.bgr, alpha: fixture.alpha, width: fixture.width,
                                                   height: fixture.height)
        let refiner = try CharacterNetwork.embeddedRefiner.get()
        let keys = ["left_eye", "right_eye", "mouth_left", "mouth_right", "mouth_center"]
        var points = try keys.map { try #require(CharacterFixture.point(truth[$0])) }
        points += [SIMD2(10, 11), SIMD2(12, 13)]
        let refined = CharacterPointFinder.refine(picture, points, refiner: refiner)
        #expect(Array(refined[5...]) == [SIMD2(10, 11), SIMD2(12, 13)])
        var broken = points
        broken[2] = SIMD2(.nan, 3)
        #expect(CharacterPointFinder.refine(picture, broken, refiner: refiner).count == 7)
        #expect(CharacterPointFinder.refine(picture, broken, refiner: refiner)[2].x.isNaN)
        #expect(CharacterPointFinder.refine(picture, [SIMD2(1, 2)], refiner: refiner) == [SIMD2(1, 2)])
        // Far outside the picture: the crops are transparent, the answers finite.
        let far = points.map { $0 + SIMD2(1e6, -1e6) }
        #expect(CharacterPointFinder.refine(picture, far, refiner: refiner).allSatisfy { $0.x.isFinite && $0.y.isFinite })
    }

    /// The refiner's weights are read as a 10-output network; read as the finder's (53 outputs) they are refused,
    /// and the finder's weights are refused as a refiner's.
    @Test func refinerWeightsAreCheckedForTheirOutputs() throws {
        let refiner = try CharacterNetwork.embeddedRefiner.get()
        #expect(refiner.outputCount == CharacterNetwork.refinerOutputs)
        #expect(refiner.size == 96)
        let bytes = CharacterNetwork.embeddedRefinerBytes, finderBytes = CharacterNetwork.embeddedBytes
        #expect(throws: CharacterPointFinderError.self) { try CharacterNetwork(bytes: bytes) }
        #expect(throws: CharacterPointFinderError.self) {
            try CharacterNetwork(bytes: finderBytes, outputs: CharacterNetwork.refinerOutputs)
        }
        #expect(throws: CharacterPointFinderError.self) {
            try CharacterNetwork(bytes: Array(bytes.dropLast(4)), outputs: CharacterNetwork.refinerOutputs)
        }
    }
}
