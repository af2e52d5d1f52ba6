import Testing
@testable import Essence2Runtime
@testable import Essence2Vision
@testable import Essence2Authoring

/// FaceAnalyzer's entry points with the shipped models: errors, choosing among several faces, and the
/// conversion of the 468 points into the avatar's landmarks and mesh.
@Suite struct FaceAnalyzerTests {
    private func analyzer() throws -> FaceAnalyzer {
        try FaceFixtures.analyzer()
    }

    /// The kind of FaceAnalysisError `body` throws; nil when it throws nothing (or another error).
    private func kind(_ body: () throws -> Void) -> FaceAnalysisError.Kind? {
        do {
            try body()
            return nil
        } catch let error as FaceAnalysisError {
            return error.kind
        } catch {
            return nil
        }
    }

    /// 256x256 B,G,R noise: every byte the top byte of a 32-bit LCG (Numerical Recipes) started at `seed`.
    private func noise(seed: UInt32) -> [UInt8] {
        var state = seed
        return (0..<(256 * 256 * 3)).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }

    @Test func uniformGreyAndNoiseImagesHaveNoFace() throws {
        var analyzer = try analyzer()
        let grey = [UInt8](repeating: 128, count: 320 * 240 * 3)
        #expect(kind { _ = try analyzer.detectFaces(bgr: grey, width: 320, height: 240) } == .noFace)
        // MediaPipe 0.10.21 finds no face in this noise either.
        #expect(kind { _ = try analyzer.detectFace(bgr: noise(seed: 1), width: 256, height: 256) } == .noFace)
    }

    @Test func detectorAgreesWithMediaPipeOnAFalseFaceInNoise() throws {
        // MediaPipe 0.10.21 reports one "face" in this noise: score 0.532, box (0.4185, 0.4756) 0.4324 x 0.4324
        // of the image (tools/face_reference.py's settings).
        var analyzer = try analyzer()
        let faces = try analyzer.detectFaces(bgr: noise(seed: 12345), width: 256, height: 256)
        #expect(faces.count == 1)
        let face = try #require(faces.first)
        #expect(abs(face.score - 0.532) < 0.01)
        let box = SIMD4(face.x, face.y, face.width, face.height) / 256
        let reference = SIMD4<Float>(0.4185, 0.4756, 0.4324, 0.4324)
        #expect(((box - reference) * (box - reference)).max().squareRoot() < 0.005, "\(box)")
    }

    @Test func badBuffersAndSizesAreErrorsNotTraps() throws {
        var analyzer = try analyzer()
        #expect(kind { _ = try analyzer.detectFaces(bgr: [], width: 0, height: 0) } == .invalidImage)
        #expect(kind { _ = try analyzer.detectFaces(bgr: [0, 0, 0], width: 2, height: 2) } == .invalidImage)
        #expect(kind { _ = try analyzer.detectFaces(bgr: [0, 0, 0], width: -1, height: -3) } == .invalidImage)
        #expect(kind { _ = try analyzer.detectFaces(bgr: [0, 0, 0], width: 1 << 31, height: 1 << 31) } == .invalidImage)
        let face = FaceDetection(x: 0, y: 0, width: 10, height: 10, keypoints: [], score: 1)
        #expect(kind { _ = try analyzer.landmarks(bgr: [1], width: 1, height: 1, face: face) } == .invalidImage)
        let nan = FaceDetection(x: .nan, y: 0, width: 10, height: 10, keypoints: [], score: 1)
        #expect(kind { _ = try analyzer.landmarks(bgr: [1, 2, 3], width: 1, height: 1, face: nan) } == .noLandmarks)
    }

    @Test func imagesUnder64PixelsASideAreTooSmallAndTheReasonSaysWhatSizeWorks() throws {
        var analyzer = try analyzer()
        var failure: FaceAnalysisError?
        do {
            _ = try analyzer.detectFaces(bgr: [UInt8](repeating: 90, count: 32 * 32 * 3), width: 32, height: 32)
        } catch {
            failure = error
        }
        #expect(failure?.kind == .imageTooSmall)
        #expect(failure?.reason.contains("the image is 32x32 pixels") == true)
        #expect(failure?.reason.contains("at least 64x64") == true)
        #expect(failure?.reason.contains("use a larger photo") == true)
        #expect(kind { _ = try analyzer.detectFaces(bgr: [UInt8](repeating: 90, count: 200 * 63 * 3), width: 200, height: 63) } == .imageTooSmall)
        // 64x64 is large enough to look in (a blank one just has no face).
        #expect(kind { _ = try analyzer.detectFaces(bgr: [UInt8](repeating: 90, count: 64 * 64 * 3), width: 64, height: 64) } == .noFace)
        #expect(FaceAnalyzer.sizeProblem(width: 64, height: 64) == nil)
    }

    @Test func aFaceTooSmallForTheLandmarkModelIsNamedAsSuchWithWhatToDo() throws {
        var analyzer = try analyzer()
        let grey = [UInt8](repeating: 90, count: 100 * 100 * 3)
        func reason(_ side: Float) -> String {
            let face = FaceDetection(x: 40, y: 40, width: side, height: side,
                                     keypoints: [SIMD2(43, 45), SIMD2(50, 45)], score: 0.9)
            do {
                _ = try analyzer.landmarks(bgr: grey, width: 100, height: 100, face: face)
                return ""
            } catch {
                return "\(error)"
            }
        }
        #expect(reason(13).contains("the face is only 13 pixels across, too small to measure"))
        #expect(reason(13).contains("use a larger photo"))
        #expect(!reason(40).contains("too small"))
    }

    @Test func malformedModelBytesAreAnError() {
        #expect(kind { _ = try FaceAnalyzer(detectorModel: [1, 2, 3], landmarkModel: [4, 5, 6]) } == .invalidModel)
        #expect(kind { _ = try FaceAnalyzer(modelDirectory: "/nonexistent") } == .invalidModel)
    }

    @Test func landmarksOfAFaceOnBlankGroundAreRefused() throws {
        var analyzer = try analyzer()
        let grey = [UInt8](repeating: 90, count: 200 * 200 * 3)
        let face = FaceDetection(x: 50, y: 50, width: 100, height: 100,
                                 keypoints: [SIMD2(80, 90), SIMD2(120, 90)], score: 0.9)
        #expect(kind { _ = try analyzer.landmarks(bgr: grey, width: 200, height: 200, face: face) } == .noLandmarks)
    }

    /// A 600x300 canvas: on the left the 300x300 square of Grace Hopper's portrait from (118, 94), on the
    /// right the 150x150 square of the astronaut's from (150, 55) enlarged 2x by pixel repetition.
    private func twoPortraits() throws -> [UInt8] {
        let left = try #require(FaceFixtures.portrait("grace_hopper"))
        let right = try #require(FaceFixtures.portrait("astronaut"))
        var canvas = [UInt8](repeating: 0, count: 600 * 300 * 3)
        for y in 0..<300 {
            for x in 0..<300 {
                for c in 0..<3 {
                    canvas[(y * 600 + x) * 3 + c] = left.pixels[((y + 94) * left.width + x + 118) * 3 + c]
                    canvas[(y * 600 + 300 + x) * 3 + c] = right.pixels[((y / 2 + 55) * right.width + x / 2 + 150) * 3 + c]
                }
            }
        }
        return canvas
    }

    @Test func twoFacesNeedANumberAndTheNumberPicksFromTheLeft() throws {
        var analyzer = try analyzer()
        let canvas = try twoPortraits()
        let faces = try analyzer.detectFaces(bgr: canvas, width: 600, height: 300)
        #expect(faces.count == 2)
        do {
            _ = try analyzer.detectFace(bgr: canvas, width: 600, height: 300)
            Issue.record("two faces must be an error without a number")
        } catch {
            #expect(error.kind == .severalFaces)
            #expect(error.description.contains("face 1: box") && error.description.contains("face 2: box"))
        }
        let first = try analyzer.detectFace(bgr: canvas, width: 600, height: 300, number: 1)
        let second = try analyzer.detectFace(bgr: canvas, width: 600, height: 300, number: 2)
        let grace = try #require(FaceFixtures.cases.first { $0.portrait == "grace_hopper" && $0.name == "original" }?.detections.first)
        let astronaut = try #require(FaceFixtures.cases.first { $0.portrait == "astronaut" && $0.name == "original" }?.detections.first)
        func centre(_ box: SIMD4<Float>) -> SIMD2<Float> { SIMD2(box.x + box.z / 2, box.y + box.w / 2) }
        let graceOffset = first.center - (centre(grace.box) - SIMD2(118, 94))
        let astronautOffset = second.center - ((centre(astronaut.box) - SIMD2(150, 55)) * 2 + SIMD2(300.5, 0.5))
        #expect((graceOffset * graceOffset).sum().squareRoot() < 0.1 * grace.box.z, "\(first)")
        #expect((astronautOffset * astronautOffset).sum().squareRoot() < 0.2 * astronaut.box.z, "\(second)")
        #expect(kind { _ = try analyzer.detectFace(bgr: canvas, width: 600, height: 300, number: 3) } == .noSuchFace)
        #expect(kind { _ = try FaceAnalyzer.choose(faces, number: 0) } == .noSuchFace)
        #expect(kind { _ = try FaceAnalyzer.choose([], number: nil) } == .noFace)
    }

    @Test func avatarLandmarksAndMeshMatchTheShippedOnesAndValidate() throws {
        var analyzer = try analyzer()
        let shipped = TestAvatar.grace
        let face = try analyzer.detectFace(bgr: shipped.pixels, width: shipped.width, height: shipped.height)
        let result = try analyzer.landmarks(bgr: shipped.pixels, width: shipped.width, height: shipped.height, face: face)
        #expect(result.presence > 0.9)
        let landmarks = result.landmarks()
        let mesh = result.mesh()
        #expect(mesh.points.count == FaceMesh.mediaPipePointCount)
        #expect(mesh.triangles.count == FaceMeshTemplate.triangleIndices.count / 3)
        #expect(landmarks.lipsOuter.count == 20 && landmarks.lipsInner.count == 20)

        // The shipped landmarks came from MediaPipe's refined (attention + iris) model: close, not equal.
        let faceWidth = Float(shipped.landmarks.faceBox.width)
        for name in FaceLandmarks.requiredPointNames {
            let ours = try #require(landmarks.points[name]), theirs = try #require(shipped.landmarks.points[name])
            let d = ours - theirs
            #expect((d * d).sum().squareRoot() < 0.03 * faceWidth, "\(name): \(ours) vs \(theirs)")
        }
        for (ours, theirs) in zip(landmarks.lipsOuter + landmarks.lipsInner, shipped.landmarks.lipsOuter + shipped.landmarks.lipsInner) {
            let d = ours - theirs
            #expect((d * d).sum().squareRoot() < 0.03 * faceWidth)
        }
        for (ours, theirs) in [(landmarks.faceBox, shipped.landmarks.faceBox), (landmarks.mouthBox, shipped.landmarks.mouthBox)] {
            let edges = [ours.x - theirs.x, ours.y - theirs.y, ours.maxX - theirs.maxX, ours.maxY - theirs.maxY]
            #expect(edges.allSatisfy { Float(abs($0)) <= 0.03 * faceWidth }, "\(ours) vs \(theirs)")
        }
        // Estimated irises near MediaPipe's iris model's: centre and ring within 0.15 eye widths.
        let eyeWidth = shipped.landmarks.points["left_eye_outer"]!.x - shipped.landmarks.points["left_eye_inner"]!.x
        for i in 468..<478 {
            let d = SIMD2(mesh.points[i].x - shipped.mesh.points[i].x, mesh.points[i].y - shipped.mesh.points[i].y)
            #expect((d * d).sum().squareRoot() < 0.15 * eyeWidth, "iris point \(i)")
        }
        let avatar = Avatar(name: "test", width: shipped.width, height: shipped.height, pixels: shipped.pixels,
                            landmarks: landmarks, mesh: mesh, headBox: landmarks.faceBox)
        #expect(avatar.validationProblem() == nil)
    }

    @Test func landmarksNearTheImageEdgeAreClippedIntoIt() {
        var points = [SIMD3<Float>](repeating: SIMD3(50, 50, 0), count: 468)
        points[10] = SIMD3(-20, -5, 1)  // forehead top above and left of the image
        points[152] = SIMD3(130, 140, 1)  // chin below and right of it
        let face = FaceDetection(x: 0, y: 0, width: 100, height: 100, keypoints: [], score: 1)
        let result = FaceLandmarkResult(points: points, presence: 1, face: face, width: 100, height: 120)
        let landmarks = result.landmarks()
        #expect(landmarks.points["forehead_top"] == SIMD2(0, 0))
        #expect(landmarks.points["chin"] == SIMD2(100, 120))
        #expect(landmarks.faceBox == PixelRect(x: 0, y: 0, width: 100, height: 120))
        #expect(result.mesh().points.allSatisfy { $0.x >= 0 && $0.x <= 100 && $0.y >= 0 && $0.y <= 120 })
        #expect(result.points[10] == SIMD3(-20, -5, 1))
    }
}
