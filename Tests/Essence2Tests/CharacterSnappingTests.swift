import Essence2Runtime
import Testing
@testable import Essence2Authoring

/// The rig editor's fast path (`CharacterPointFinder.snap` and `place`) on the drawn fixtures (never trained on).
@Suite struct CharacterSnappingTests {
    static let keys = ["left_eye", "right_eye", "mouth_left", "mouth_right", "mouth_center"]

    static func truth(_ name: String) throws -> (CharacterFixture.Picture, CharacterPoints) {
        let (picture, info) = try CharacterFixture.load(name)
        let p = try keys.map { try #require(CharacterFixture.point(info[$0])) }
        return (picture, CharacterPoints(leftEye: p[0], rightEye: p[1], mouthLeft: p[2], mouthRight: p[3],
                                               mouthCenter: p[4], mouth: .closed))
    }

    /// An eye dropped a fifth of an eye distance off comes back within 0.15 of the drawn eye (from 0.2); the other
    /// points are left as they were.
    @Test(arguments: CharacterFixture.names)
    func aDroppedEyeSnapsOntoTheDrawnEye(name: String) throws {
        let (picture, truth) = try Self.truth(name)
        var dropped = truth
        dropped.leftEye += SIMD2(0.16, -0.12) * truth.eyeDistance
        let snapped = try CharacterPointFinder.snap(.leftEye, of: dropped, bgr: picture.bgr, alpha: picture.alpha,
                                                    width: picture.width, height: picture.height)
        #expect(simd_length(snapped.leftEye - truth.leftEye) <= 0.15 * truth.eyeDistance,
                "\(name): \(snapped.leftEye) vs \(truth.leftEye)")
        var others = snapped
        others.leftEye = dropped.leftEye
        #expect(others == dropped)
    }

    /// A point dropped on nothing (a blank picture) stays where it was dropped.
    @Test func aPointOnABlankPictureStays() throws {
        let (w, h) = (128, 128)
        let blank = [UInt8](repeating: 255, count: w * h * 3)
        let points = CharacterPoints(leftEye: SIMD2(40, 50), rightEye: SIMD2(88, 50), mouthLeft: SIMD2(50, 90),
                                           mouthRight: SIMD2(78, 90), mouthCenter: SIMD2(64, 92), mouth: .closed)
        for point in CharacterPointFinder.SnappedPoint.allCases {
            let snapped = try CharacterPointFinder.snap(point, of: points, bgr: blank, alpha: nil, width: w, height: h)
            for key in Self.keys where key != point.name {
                #expect(Self.value(snapped, key) == Self.value(points, key))
            }
            #expect(simd_length(Self.value(snapped, point.name) - Self.value(points, point.name))
                    <= CharacterPointFinder.snapReach * points.eyeDistance)
        }
    }

    /// Three clicks a tenth of an eye distance off (the eyes in the wrong order) give a rig whose eyes are within
    /// 0.1 eye distances of the drawn ones and whose mouth is within 0.25, corners either side of the centre.
    @Test(arguments: CharacterFixture.names)
    func threeClicksPlaceARig(name: String) throws {
        let (picture, truth) = try Self.truth(name)
        let off = 0.1 * truth.eyeDistance
        let placed = try CharacterPointFinder.place(
            eyes: truth.rightEye + SIMD2(-0.6, 0.8) * off, truth.leftEye + SIMD2(0.8, 0.6) * off,
            mouth: truth.mouthCenter + SIMD2(0.6, -0.8) * off, bgr: picture.bgr, alpha: picture.alpha,
            width: picture.width, height: picture.height)
        #expect(simd_length(placed.leftEye - truth.leftEye) <= 0.1 * truth.eyeDistance, "\(name): left eye")
        #expect(simd_length(placed.rightEye - truth.rightEye) <= 0.1 * truth.eyeDistance, "\(name): right eye")
        #expect(simd_length(placed.mouthCenter - truth.mouthCenter) <= 0.25 * truth.eyeDistance, "\(name): mouth")
        #expect(placed.mouthLeft.x < placed.mouthCenter.x && placed.mouthCenter.x < placed.mouthRight.x)
        #expect(placed.leftEyeRadius == nil && placed.rightEyeRadius == nil && placed.outline.isEmpty)
    }

    /// Clicks that cannot make a rig are refused with the reason, never a trap.
    @Test func badClicksAreRefused() throws {
        let (picture, _) = try Self.truth(CharacterFixture.names[0])
        func place(_ a: SIMD2<Float>, _ b: SIMD2<Float>, _ m: SIMD2<Float>) throws {
            _ = try CharacterPointFinder.place(eyes: a, b, mouth: m, bgr: picture.bgr, alpha: picture.alpha,
                                               width: picture.width, height: picture.height)
        }
        #expect(throws: CharacterPointFinderError.self) { try place(SIMD2(40, 50), SIMD2(40.5, 50), SIMD2(40, 90)) }
        #expect(throws: CharacterPointFinderError.self) { try place(SIMD2(.nan, 50), SIMD2(80, 50), SIMD2(60, 90)) }
        #expect(throws: CharacterPointFinderError.self) {
            _ = try CharacterPointFinder.place(eyes: SIMD2(40, 50), SIMD2(80, 50), mouth: SIMD2(60, 90),
                                               bgr: [1, 2, 3], alpha: nil, width: 128, height: 128)
        }
    }

    static func value(_ p: CharacterPoints, _ key: String) -> SIMD2<Float> {
        switch key {
        case "left_eye": p.leftEye
        case "right_eye": p.rightEye
        case "mouth_left": p.mouthLeft
        case "mouth_right": p.mouthRight
        default: p.mouthCenter
        }
    }
}
