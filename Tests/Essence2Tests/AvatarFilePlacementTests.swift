import Testing
@testable import Essence2Runtime
@testable import Essence2Vision
@testable import Essence2Authoring

@Suite struct AvatarFilePlacementTests {
    @Test func enlargingMapsLandmarksMeshAndBoxesOntoTheCanvas() throws {
        let avatar = AvatarFixture.small()  // 64x48
        let placed = avatar.placed(onCanvasWidth: 128, height: 192)  // scale 2: 128x96 at y offset 48
        #expect(placed.width == 128 && placed.height == 192)
        #expect(placed.pixels.count == 128 * 192 * 3 && placed.headMask.count == 128 * 192)
        let chin = try #require(avatar.landmarks.points["chin"])
        #expect(placed.landmarks.points["chin"] == SIMD2(chin.x * 2, chin.y * 2 + 48))
        #expect(placed.landmarks.lipsInner[3] == SIMD2(avatar.landmarks.lipsInner[3].x * 2, avatar.landmarks.lipsInner[3].y * 2 + 48))
        let p = avatar.mesh.points[100], q = placed.mesh.points[100]
        #expect(q == SIMD3(p.x * 2, p.y * 2 + 48, p.z * 2))
        let face = avatar.landmarks.faceBox
        #expect(placed.landmarks.faceBox == PixelRect(x: face.x * 2, y: face.y * 2 + 48, width: face.width * 2, height: face.height * 2))
        #expect(placed.headBox == PixelRect(x: avatar.headBox.x * 2, y: avatar.headBox.y * 2 + 48,
                                            width: avatar.headBox.width * 2, height: avatar.headBox.height * 2))
        #expect(placed.mesh.triangles == avatar.mesh.triangles)
        #expect(placed.name == avatar.name && placed.seed == avatar.seed)
        #expect(placed.validationProblem() == nil)
        #expect(try AvatarFile.read(bytes: AvatarFile.encode(placed)).landmarks == placed.landmarks)
    }

    @Test func maskIsZeroOutsideThePortraitAndScaledInside() {
        let avatar = AvatarFixture.small()
        let placed = avatar.placed(onCanvasWidth: 128, height: 192)
        #expect(placed.headMask[0..<(128 * 48)].allSatisfy { $0 == 0 })
        #expect(placed.headMask[(128 * 144)...].allSatisfy { $0 == 0 })
        #expect(placed.headMask[100 * 128 + 120] == 255)  // right half of the portrait is 255 in the fixture
        #expect(placed.headMask[100 * 128 + 10] == 0)
    }

    @Test func shrinkingFitsAndCentres() {
        let avatar = AvatarFixture.small()  // 64x48 onto 32x32: 32x24 at y offset 4
        let placed = avatar.placed(onCanvasWidth: 32, height: 32)
        #expect(placed.width == 32 && placed.height == 32)
        let nose = avatar.landmarks.points["nose_tip"]!
        #expect(placed.landmarks.points["nose_tip"] == SIMD2(nose.x / 2, nose.y / 2 + 4))
        #expect(placed.headBox.width == placed.headBox.height)
        #expect(placed.validationProblem() == nil)
    }

    @Test func sameSizeReturnsTheAvatarUnchanged() {
        let avatar = AvatarFixture.small()
        let placed = avatar.placed(onCanvasWidth: 64, height: 48)
        #expect(placed.pixels == avatar.pixels && placed.landmarks == avatar.landmarks && placed.mesh == avatar.mesh)
    }

    @Test func backgroundExtendsTheEdgeColoursInsteadOfBlack() {
        var avatar = AvatarFixture.small()
        for i in stride(from: 0, to: avatar.pixels.count, by: 3) {
            avatar.pixels[i] = 10; avatar.pixels[i + 1] = 200; avatar.pixels[i + 2] = 90
        }
        let placed = avatar.placed(onCanvasWidth: 200, height: 300)
        for i in stride(from: 0, to: placed.pixels.count, by: 3) where placed.pixels[i] != 10 || placed.pixels[i + 1] != 200 || placed.pixels[i + 2] != 90 {
            Issue.record("pixel \(i / 3) is not the portrait's colour")
            break
        }
        // A two-coloured portrait: top rows red, bottom rows blue; the padding above is red, below blue.
        for y in 0..<48 {
            for x in 0..<64 {
                let i = (y * 64 + x) * 3
                avatar.pixels[i] = y < 24 ? 0 : 255; avatar.pixels[i + 1] = 0; avatar.pixels[i + 2] = y < 24 ? 255 : 0
            }
        }
        let banded = avatar.placed(onCanvasWidth: 64, height: 148)  // 50 rows of padding above and below
        #expect(banded.pixels[(5 * 64 + 30) * 3 + 2] > 200 && banded.pixels[(5 * 64 + 30) * 3] < 50)
        #expect(banded.pixels[(140 * 64 + 30) * 3] > 200 && banded.pixels[(140 * 64 + 30) * 3 + 2] < 50)
    }

    @Test func placingTheShippedAvatarOnAPortraitCanvasKeepsTheFaceInPlace() throws {
        let avatar = try AvatarFile.read(path: AvatarFixture.repositoryRoot + "/avatars/astronaut.imx")
        let placed = avatar.placed(onCanvasWidth: 270, height: 480)  // 512x512 -> 270x270 at y 105
        #expect(placed.validationProblem() == nil)
        let scale = Float(270) / 512
        let chin = avatar.landmarks.points["chin"]!
        let mapped = placed.landmarks.points["chin"]!
        #expect(abs(mapped.x - chin.x * scale) < 0.01 && abs(mapped.y - (chin.y * scale + 105)) < 0.01)
        #expect(placed.headBox.width == placed.headBox.height)
    }
}
