import FoundationEssentials
import Testing
@testable import Essence2Runtime
@testable import Essence2Authoring

/// A character's points have one JSON coding: the points file (`--points`, the rig editor) and the `.imx` rig
/// section read and write the same members.
@Suite struct CharacterPointsJSONTests {
    static let points = CharacterPoints(
        leftEye: SIMD2(130.25, 170), rightEye: SIMD2(230.5, 171.125), leftEyeRadius: 18, rightEyeRadius: 17.5,
        mouthLeft: SIMD2(140, 265), mouthRight: SIMD2(220, 265), mouthCenter: SIMD2(180, 268.75),
        leftBrow: SIMD2(130, 135), rightBrow: nil, mouth: .open, mouthOpening: 6.5,
        outline: [SIMD2(180, 50), SIMD2(330, 200), SIMD2(180, 350), SIMD2(30, 200)])

    @Test func aPointsFileRoundTripsAndLeavesOutWhatIsNotGiven() throws {
        let read = try CharacterPoints.decode(Self.points.jsonBytes(), width: 360, height: 400)
        #expect(read == Self.points)
        let bare = CharacterPoints(leftEye: SIMD2(10, 10), rightEye: SIMD2(30, 10), mouthLeft: SIMD2(12, 30),
                                   mouthRight: SIMD2(28, 30), mouthCenter: SIMD2(20, 31), mouth: .absent)
        let text = String(decoding: bare.jsonBytes(), as: UTF8.self)
        for key in ["radius", "brow", "mouth_opening", "outline"] { #expect(!text.contains(key), "\(key) in \(text)") }
        #expect(try CharacterPoints.decode(bare.jsonBytes(), width: 40, height: 40) == bare)
    }

    /// The rig section is the points' coding plus `source`: its points read as a points file give the rig's.
    @Test func theRigSectionIsThePointsCodingPlusItsSource() throws {
        let rig = CharacterRig(points: Self.points, sourceWidth: 720, sourceHeight: 800, sourceScale: 0.5,
                               sourceOffset: SIMD2(0, 0))
        let section = rig.encoded()
        #expect(try CharacterRig.decode(section) == rig)
        let asPoints = try CharacterPoints.decode(section, width: 416, height: 720)
        #expect(asPoints == Self.points)
        // A rig must give what a points file may leave out.
        var radiusless = Self.points
        radiusless.leftEyeRadius = nil
        let withoutRadius = CharacterRig(points: radiusless, sourceWidth: 1, sourceHeight: 1, sourceScale: 1,
                                         sourceOffset: .zero)
        var text = String(decoding: withoutRadius.encoded(), as: UTF8.self)
        text = text.replacing("\"left_eye_radius\": 0,", with: "")
        #expect(throws: AvatarFileError.self) { try CharacterRig.decode(Array(text.utf8)) }
    }

    /// Rig sections written before the coding was shared (on one line, to a thousandth) read as they did.
    @Test func anEarlierRigSectionStillReads() throws {
        let earlier = """
            {"left_eye": [130.25, 170], "right_eye": [230.5, 171.125], "left_eye_radius": 18, "right_eye_radius": 17.5, \
            "mouth_left": [140, 265], "mouth_right": [220, 265], "mouth_center": [180, 268.75], "mouth": "open", \
            "mouth_opening": 6.5, "left_brow": [130, 135], "outline": [[180, 50], [330, 200], [180, 350], [30, 200]], \
            "source": {"width": 720, "height": 800, "scale": 0.5, "offset": [0, 0]}}
            """
        let rig = try CharacterRig.decode(Array(earlier.utf8))
        #expect(rig.points == Self.points)
        #expect(rig.sourceWidth == 720 && rig.sourceScale == 0.5)
    }

    @Test func pointsOutsideThePictureOrOutOfOrderAreRefusedWithTheKey() throws {
        func reason(_ text: String) -> String {
            do {
                _ = try CharacterPoints.decode(Array(text.utf8), width: 360, height: 400)
                return ""
            } catch {
                return error.description
            }
        }
        let good = String(decoding: Self.points.jsonBytes(), as: UTF8.self)
        #expect(reason(good.replacing("\"left_eye\": [130.25", with: "\"left_eye\": [1e300")).contains("left_eye"))
        let swapped = good.replacing("\"right_eye\": [230.5", with: "\"right_eye\": [100")
        #expect(reason(swapped).contains("right_eye"))
        #expect(reason(good.replacing("\"mouth_left\": [140", with: "\"mouth_left\": [400")).contains("outside the 360x400"))
    }
}
