import Testing
@testable import Essence2Runtime
@testable import Essence2Vision
@testable import Essence2Authoring

@Suite struct AvatarFileBuilderTests {
    private let landmarks: [UInt8]
    private let mesh: [UInt8]
    private let pixels = [UInt8](repeating: 128, count: 512 * 600 * 3)

    init() throws {
        landmarks = try AvatarFixture.repositoryFile("avatars/sources/grace_hopper.landmarks.json")
        mesh = try AvatarFixture.repositoryFile("avatars/sources/grace_hopper.mesh.json")
    }

    private func build(landmarks: [UInt8]? = nil, mesh: [UInt8]?? = .none, pixels: [UInt8]? = nil,
                       width: Int = 512, height: Int = 600) throws(AvatarFileError) -> Avatar {
        try AvatarBuilder.build(name: "Grace Hopper", bgr: pixels ?? self.pixels, width: width, height: height,
                                landmarksJSON: landmarks ?? self.landmarks, meshJSON: mesh ?? self.mesh)
    }

    private func buildError(landmarks: [UInt8]? = nil, mesh: [UInt8]?? = .none, pixels: [UInt8]? = nil,
                            width: Int = 512, height: Int = 600) -> AvatarFileError? {
        do {
            _ = try build(landmarks: landmarks, mesh: mesh, pixels: pixels, width: width, height: height)
            return nil
        } catch {
            return error
        }
    }

    /// The JSON text with the first occurrence of `old` replaced.
    private func edited(_ bytes: [UInt8], _ old: String, _ new: String) -> [UInt8] {
        let pattern = Array(old.utf8)
        guard pattern.count <= bytes.count else { return bytes }
        for start in 0...(bytes.count - pattern.count) where bytes[start..<(start + pattern.count)].elementsEqual(pattern) {
            var result = bytes
            result.replaceSubrange(start..<(start + pattern.count), with: Array(new.utf8))
            return result
        }
        return bytes
    }

    @Test func buildsFromTheSharedLandmarkAndMeshJSON() throws {
        let avatar = try build()
        #expect(avatar.validationProblem() == nil)
        #expect(avatar.landmarks.points["chin"] == SIMD2(270.3, 333.6))
        #expect(avatar.landmarks.faceBox == PixelRect(x: 173, y: 132, width: 183, height: 202))
        #expect(avatar.landmarks.mouthBox == PixelRect(x: 215, y: 257, width: 105, height: 48))
        #expect(avatar.landmarks.lipsOuter.count == 20 && avatar.landmarks.lipsInner.count == 20)
        #expect(avatar.mesh.points.count == 478 && avatar.mesh.triangles.count == 854)
        #expect(avatar.mesh.points[1] == SIMD3(267.76, 245.97, -42.59))
        #expect(avatar.seed == AvatarBuilder.defaultSeed)
    }

    @Test func headBoxIsASquareInsideThePortraitAroundFaceAndHair() throws {
        let avatar = try build()
        let head = avatar.headBox, face = avatar.landmarks.faceBox
        #expect(head.width == head.height)
        #expect(head.x >= 0 && head.y >= 0 && head.maxX <= 512 && head.maxY <= 600)
        #expect(head.x <= face.x && head.maxX >= face.maxX && head.maxY >= face.maxY)
        // Room for hair above the forehead and some neck below the chin.
        #expect(face.y - head.y >= face.height / 3)
        #expect(head.maxY - face.maxY >= face.height / 5)
    }

    @Test func headMaskCoversTheFaceFadesDownTheNeckAndLeavesTheCornersStill() throws {
        let avatar = try build()
        func mask(_ x: Int, _ y: Int) -> UInt8 { avatar.headMask[y * 512 + x] }
        #expect(avatar.headMask.count == 512 * 600)
        #expect(mask(268, 246) == 255)  // nose tip
        #expect(mask(264, 100) == 255)  // above the forehead: hair or hat
        for corner in [(0, 0), (511, 0), (0, 599), (511, 599), (100, 500)] { #expect(mask(corner.0, corner.1) == 0) }
        // Below the chin (y 334) the mask falls off toward the collar.
        #expect(mask(270, 345) > mask(270, 420))
        #expect(mask(270, 490) == 0)
        // Soft edge: some values strictly between 0 and 255.
        #expect(avatar.headMask.contains { $0 > 0 && $0 < 255 })
    }

    @Test func withoutAMeshTheSynthesizedMeshFollowsTheRealOne() throws {
        let real = try build()
        let synthesized = try build(mesh: .some(nil))
        #expect(synthesized.mesh.points.count == 478)
        #expect(synthesized.mesh.triangles == real.mesh.triangles.sorted { ($0.x, $0.y, $0.z) < ($1.x, $1.y, $1.z) }
            || synthesized.mesh.triangles.count == real.mesh.triangles.count)
        #expect(synthesized.validationProblem() == nil)
        // It passes exactly through the given lip outline.
        for (i, index) in FaceMesh.mediaPipeLipsOuter.enumerated() {
            let p = synthesized.mesh.points[index]
            #expect(SIMD2(p.x, p.y) == synthesized.landmarks.lipsOuter[i])
        }
        // And stays close to MediaPipe's own mesh elsewhere (inter-eye distance about 80 px here).
        var total: Float = 0, worst: Float = 0
        for (a, b) in zip(synthesized.mesh.points, real.mesh.points) {
            let d = SIMD2(a.x - b.x, a.y - b.y)
            let distance = (d.x * d.x + d.y * d.y).squareRoot()
            total += distance
            worst = max(worst, distance)
        }
        #expect(total / 478 < 3.5)
        #expect(worst < 16)
    }

    @Test(arguments: ["", "{", "[]", "{\"mediapipe\": {}}", "{\"points\": {\"chin\": [1, 2]},}", "{\"a\": NaN}", "{\"a\": 1, \"a\": 2}", "\u{0}"])
    func malformedLandmarkJSONIsInvalidInput(text: String) {
        #expect(buildError(landmarks: Array(text.utf8))?.kind == .invalidInput)
    }

    @Test func truncatedLandmarkJSONIsInvalidInputAtEveryCut() {
        for cut in stride(from: 0, to: landmarks.count - 2, by: 97) {
            let error = buildError(landmarks: Array(landmarks[0..<cut]))
            #expect(error?.kind == .invalidInput, "cut \(cut)")
        }
    }

    @Test func landmarkOutsideThePortraitIsRejected() {
        let moved = edited(landmarks, "\"chin\": [\n    270.3,", "\"chin\": [\n    9999.0,")
        #expect(moved != landmarks)
        let error = buildError(landmarks: moved)
        #expect(error?.kind == .invalidInput)
        #expect(error?.reason.contains("'chin'") == true, "\(String(describing: error))")
        let negative = edited(landmarks, "\"nose_tip\": [\n    267.8,", "\"nose_tip\": [\n    -3,")
        #expect(buildError(landmarks: negative)?.kind == .invalidInput)
    }

    @Test func missingPointOrWrongLipCountIsRejected() {
        let renamed = edited(landmarks, "\"nose_tip\"", "\"nose_tap\"")
        #expect(buildError(landmarks: renamed)?.reason.contains("nose_tip") == true)
        let shortLips = edited(landmarks, "\"lips_outer_polygon\": [\n   [\n    232.4,\n    280.6\n   ],", "\"lips_outer_polygon\": [")
        #expect(shortLips != landmarks)
        #expect(buildError(landmarks: shortLips)?.reason.contains("19 points") == true)
    }

    @Test func landmarksForAnotherImageSizeAreRejected() {
        #expect(buildError(pixels: [UInt8](repeating: 0, count: 512 * 601 * 3), height: 601)?.kind == .invalidInput)
    }

    @Test func malformedMeshJSONIsRejected() {
        #expect(buildError(mesh: .some(Array("{\"points\": []}".utf8)))?.kind == .invalidInput)
        let badIndex = edited(mesh, "[391, 423, 426]", "[391, 423, 478]")
        #expect(badIndex != mesh)
        #expect(buildError(mesh: .some(badIndex))?.reason.contains("triangle") == true)
        let repeated = edited(mesh, "[391, 423, 426]", "[391, 391, 426]")
        #expect(buildError(mesh: .some(repeated))?.reason.contains("repeats") == true)
        let outside = edited(mesh, "[267.67, 272.23, -20.52]", "[267.67, 772.23, -20.52]")
        #expect(outside != mesh)
        #expect(buildError(mesh: .some(outside))?.reason.contains("mesh point 0") == true)
        let fraction = edited(mesh, "[391, 423, 426]", "[391, 423.5, 426]")
        #expect(buildError(mesh: .some(fraction))?.kind == .invalidInput)
    }

    @Test func wrongPixelBufferSizeOrAbsurdSizeIsRejected() {
        #expect(buildError(pixels: [1, 2, 3])?.kind == .invalidInput)
        #expect(buildError(pixels: [], width: 100_000, height: 100_000)?.kind == .tooLarge)
        #expect(buildError(pixels: [], width: 0, height: 10)?.kind == .invalidInput)
    }

    @Test func builtAvatarSurvivesAFileRoundTrip() throws {
        let avatar = try build(mesh: .some(nil))
        let decoded = try AvatarFile.read(bytes: AvatarFile.encode(avatar))
        #expect(decoded.mesh == avatar.mesh && decoded.headMask == avatar.headMask && decoded.headBox == avatar.headBox)
    }
}
