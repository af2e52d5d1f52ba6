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

    @Test func backgroundContinuesThePortraitsBorderWithoutAVisibleEdge() {
        var avatar = AvatarFixture.small()
        for i in stride(from: 0, to: avatar.pixels.count, by: 3) {
            avatar.pixels[i] = 10; avatar.pixels[i + 1] = 200; avatar.pixels[i + 2] = 90
        }
        // One colour: the whole canvas is that colour (never black).
        let placed = avatar.placed(onCanvasWidth: 200, height: 300)
        for i in stride(from: 0, to: placed.pixels.count, by: 3) where placed.pixels[i] != 10 || placed.pixels[i + 1] != 200 || placed.pixels[i + 2] != 90 {
            Issue.record("pixel \(i / 3) is not the portrait's colour")
            break
        }
        // A two-coloured portrait (top rows red, bottom rows blue): right at each edge the padding goes on in
        // the edge's colour (no visible edge).
        for y in 0..<48 {
            for x in 0..<64 {
                let i = (y * 64 + x) * 3
                avatar.pixels[i] = y < 24 ? 0 : 255; avatar.pixels[i + 1] = 0; avatar.pixels[i + 2] = y < 24 ? 255 : 0
            }
        }
        let banded = avatar.placed(onCanvasWidth: 64, height: 148)  // 50 rows of padding above and below
        #expect(banded.pixels[(48 * 64 + 30) * 3 + 2] > 200 && banded.pixels[(48 * 64 + 30) * 3] < 50)
        #expect(banded.pixels[(100 * 64 + 30) * 3] > 200 && banded.pixels[(100 * 64 + 30) * 3 + 2] < 50)
        // A textured portrait (a checkerboard of 4-pixel squares): across the edge the rows differ no more than
        // inside, and within a few rows the texture has faded into the border's colours (no copy of it).
        for y in 0..<48 {
            for x in 0..<64 {
                let i = (y * 64 + x) * 3
                let v: UInt8 = (x / 4 + y / 4) % 2 == 0 ? 40 : 220
                avatar.pixels[i] = v; avatar.pixels[i + 1] = v; avatar.pixels[i + 2] = v
            }
        }
        let textured = avatar.placed(onCanvasWidth: 64, height: 148)
        func value(_ x: Int, _ y: Int) -> Int { Int(textured.pixels[(y * 64 + x) * 3]) }
        func rowStep(_ y: Int) -> Double { Double((0..<64).map { abs(value($0, y) - value($0, y + 1)) }.reduce(0, +)) / 64 }
        let inside = (54..<60).map(rowStep).max() ?? 0
        #expect(rowStep(49) <= inside + 1, "the step across the top edge \(rowStep(49)) exceeds the portrait's own \(inside)")
        // (Away from the ends, where the border's average is over the part of the window inside the border.)
        let farRow = (12..<52).map { value($0, 20) }
        #expect(farRow.max()! - farRow.min()! <= 12, "30 rows out the checkerboard still shows: \(farRow)")
    }

    @Test func marginsCarryNoCopyOfThePicturesStructures() {
        // A grey portrait with a white disc near its top edge (a flag, a hat): the old mirrored fill showed the
        // disc again above the portrait. The margin above is smooth: no second bright blob, no row-to-row steps
        // beyond a few levels, and far out it stays near the border's colours.
        var avatar = AvatarFixture.small()  // 64x48
        for y in 0..<48 {
            for x in 0..<64 {
                let i = (y * 64 + x) * 3
                let d = Float((x - 32) * (x - 32) + (y - 10) * (y - 10)).squareRoot()
                let v: UInt8 = d < 7 ? 250 : 100
                avatar.pixels[i] = v; avatar.pixels[i + 1] = v; avatar.pixels[i + 2] = v
            }
        }
        let placed = avatar.placed(onCanvasWidth: 64, height: 148)  // 50 rows of margin above and below
        func value(_ x: Int, _ y: Int) -> Int { Int(placed.pixels[(y * 64 + x) * 3]) }
        // The mirror image of the disc would sit about 10 rows above the edge (y 40).
        let mirrored = (0..<64).map { value($0, 40) }.max()!
        #expect(mirrored < 110, "a copy of the disc shows above the portrait (\(mirrored))")
        for y in 0..<49 {
            for x in 0..<63 {
                #expect(abs(value(x, y) - value(x, y + 1)) <= 4 && abs(value(x, y) - value(x + 1, y)) <= 4,
                        "the margin has a step at (\(x), \(y))")
            }
        }
        #expect((0..<64).allSatisfy { abs(value($0, 0) - 100) <= 6 })
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
