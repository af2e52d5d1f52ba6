#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import Essence2Runtime
@testable import Essence2Vision
@testable import Essence2Authoring

/// MediaPipe 0.10.21 reference outputs (Fixtures/face, made by tools/face_reference.py) and the images they
/// were made from, rebuilt from the shipped avatars' pixels with the script's exact transforms.
enum FaceFixtures {
    struct Detection {
        var box: SIMD4<Float>  // xmin, ymin, width, height
        var score: Float
        var keypoints: [SIMD2<Float>]
    }

    struct Case: CustomStringConvertible {
        var portrait: String
        var name: String
        var transform: JSONValue
        var width: Int
        var height: Int
        var rgbSHA256: String
        var detections: [Detection]
        var landmarks: [SIMD3<Float>]
        var description: String { "\(portrait) \(name)" }
    }

    static let portraits = [("grace_hopper", "grace-hopper.imx"), ("astronaut", "astronaut.imx")]

    static let cases: [Case] = portraits.flatMap { load($0.0) }

    static func load(_ portrait: String) -> [Case] {
        let path = TestAvatar.repositoryRoot + "/Tests/Essence2Tests/Fixtures/face/\(portrait).json"
        guard let bytes = try? BinaryFile.read(path: path, maxSize: 1 << 20),
              let json = try? JSONParser.parse(bytes), let items = json["cases"]?.arrayValue else { return [] }
        return items.compactMap { item in
            guard let name = item["case"]?.stringValue, let transform = item["transform"],
                  let width = item["width"]?.intValue, let height = item["height"]?.intValue,
                  let digest = item["rgbSHA256"]?.stringValue,
                  let detections = item["detections"]?.arrayValue, let landmarks = item["landmarks"]?.arrayValue
            else { return nil }
            let parsed: [Detection] = detections.compactMap { d in
                guard let box = d["box"]?.arrayValue?.compactMap(\.doubleValue), box.count == 4,
                      let score = d["score"]?.doubleValue,
                      let keypoints = d["keypoints"]?.arrayValue?.compactMap(JSONGeometry.point2) else { return nil }
                return Detection(box: SIMD4(box.map(Float.init)), score: Float(score), keypoints: keypoints)
            }
            return Case(portrait: portrait, name: name, transform: transform, width: width, height: height,
                        rgbSHA256: digest, detections: parsed, landmarks: landmarks.compactMap(JSONGeometry.point3))
        }
    }

    /// The portrait's B,G,R pixels as stored in the shipped avatar.
    static func portrait(_ name: String) -> (pixels: [UInt8], width: Int, height: Int)? {
        guard let file = portraits.first(where: { $0.0 == name })?.1,
              let avatar = try? AvatarFile.read(path: TestAvatar.repositoryRoot + "/avatars/" + file) else { return nil }
        return (avatar.pixels, avatar.width, avatar.height)
    }

    /// The case's image (B,G,R), made as tools/face_reference.py makes it.
    static func image(_ fixture: Case) -> [UInt8]? {
        guard let (pixels, width, height) = portrait(fixture.portrait) else { return nil }
        switch fixture.transform["kind"]?.stringValue {
        case "original":
            return pixels
        case "flip":
            var out = pixels
            for y in 0..<height {
                for x in 0..<width {
                    for c in 0..<3 { out[(y * width + x) * 3 + c] = pixels[(y * width + width - 1 - x) * 3 + c] }
                }
            }
            return out
        case "rotate":
            guard let degrees = fixture.transform["degrees"]?.doubleValue else { return nil }
            return rotated(pixels, width: width, height: height, degrees: degrees)
        case "scale":
            guard let w = fixture.transform["width"]?.intValue, let h = fixture.transform["height"]?.intValue else { return nil }
            return rescaled(pixels, width: width, height: height, to: w, h)
        default:
            return nil
        }
    }

    /// Rotation about the centre, same canvas, black outside (tools/face_reference.py `rotated`).
    static func rotated(_ pixels: [UInt8], width: Int, height: Int, degrees: Double) -> [UInt8] {
        let a = degrees * (Double.pi / 180)  // as Python's math.radians
        let cx = Double(width - 1) / 2, cy = Double(height - 1) / 2
        let c = cos(a), s = sin(a)
        var out = [UInt8](repeating: 0, count: pixels.count)
        for y in 0..<height {
            for x in 0..<width {
                let dx = Double(x) - cx, dy = Double(y) - cy
                let sx = cx + c * dx - s * dy
                let sy = cy + s * dx + c * dy
                sample(pixels, width: width, height: height, sx, sy, clamp: false, into: &out, at: (y * width + x) * 3)
            }
        }
        return out
    }

    /// Bilinear resize with pixel centres aligned, edges replicated (tools/face_reference.py `rescaled`).
    static func rescaled(_ pixels: [UInt8], width: Int, height: Int, to newWidth: Int, _ newHeight: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: newWidth * newHeight * 3)
        for y in 0..<newHeight {
            for x in 0..<newWidth {
                let sx = (Double(x) + 0.5) * Double(width) / Double(newWidth) - 0.5
                let sy = (Double(y) + 0.5) * Double(height) / Double(newHeight) - 0.5
                sample(pixels, width: width, height: height, sx, sy, clamp: true, into: &out, at: (y * newWidth + x) * 3)
            }
        }
        return out
    }

    /// The script's float64 bilinear sample, with its order of operations, stored as floor(v + 0.5).
    private static func sample(_ pixels: [UInt8], width: Int, height: Int, _ sx: Double, _ sy: Double, clamp: Bool,
                               into out: inout [UInt8], at offset: Int) {
        let x0 = Int(sx.rounded(.down)), y0 = Int(sy.rounded(.down))
        let fx = sx - Double(x0), fy = sy - Double(y0)
        var b = 0.0, g = 0.0, r = 0.0
        for tap in 0..<4 {
            let dx = tap & 1, dy = tap >> 1
            let wy = dy == 0 ? 1 - fy : fy, wx = dx == 0 ? 1 - fx : fx
            let xi = x0 + dx, yi = y0 + dy
            let weight = wx * wy
            // Outside adds weight * 0 in the script, which changes nothing.
            if !clamp && !(xi >= 0 && xi < width && yi >= 0 && yi < height) { continue }
            let i = (min(max(yi, 0), height - 1) * width + min(max(xi, 0), width - 1)) * 3
            b += weight * Double(pixels[i])
            g += weight * Double(pixels[i + 1])
            r += weight * Double(pixels[i + 2])
        }
        out[offset] = UInt8(min(max((b + 0.5).rounded(.down), 0), 255))
        out[offset + 1] = UInt8(min(max((g + 0.5).rounded(.down), 0), 255))
        out[offset + 2] = UInt8(min(max((r + 0.5).rounded(.down), 0), 255))
    }

    /// SHA-256 (hex) of the image's bytes in R,G,B order, as the script records it.
    static func rgbDigest(_ bgr: [UInt8]) -> String {
        var rgb = bgr
        for i in stride(from: 0, to: rgb.count, by: 3) { rgb.swapAt(i, i + 2) }
        return SHA256.hex(SHA256.hash(rgb))
    }

    /// The shipped models (models/), parsed once.
    static let models: (detector: TFLiteModel, landmarks: TFLiteModel)? = {
        let directory = TestAvatar.repositoryRoot + "/models/"
        guard let detector = try? BinaryFile.read(path: directory + FaceModelFile.detector.fileName, maxSize: 1 << 24),
              let landmarks = try? BinaryFile.read(path: directory + FaceModelFile.landmarks.fileName, maxSize: 1 << 24),
              let detectorModel = try? TFLiteModel(bytes: detector),
              let landmarkModel = try? TFLiteModel(bytes: landmarks) else { return nil }
        return (detectorModel, landmarkModel)
    }()

    /// An analyser running the shipped models.
    static func analyzer() throws -> FaceAnalyzer {
        let models = try #require(Self.models, "models missing from models/ or unreadable")
        return try FaceAnalyzer(detectorModel: models.detector, landmarkModel: models.landmarks)
    }
}

/// The Swift detector and landmarks against MediaPipe's own outputs on every fixture image.
@Suite struct FaceFixtureTests {
    @Test func fixturesCoverBothPortraitsWithAllVariants() {
        for (portrait, _) in FaceFixtures.portraits {
            let names = FaceFixtures.cases.filter { $0.portrait == portrait }.map(\.name)
            #expect(names.count == 6, "\(portrait): \(names)")
            #expect(names.contains("flip") && names.contains("rotate+20") && names.contains("rotate-20"))
        }
        for fixture in FaceFixtures.cases {
            #expect(fixture.detections.count == 1, "\(fixture)")
            #expect(fixture.landmarks.count == 468, "\(fixture)")
        }
    }

    @Test(arguments: FaceFixtures.cases)
    func rebuiltImageIsByteIdenticalToTheReferenceScripts(_ fixture: FaceFixtures.Case) throws {
        let image = try #require(FaceFixtures.image(fixture))
        #expect(image.count == fixture.width * fixture.height * 3)
        #expect(FaceFixtures.rgbDigest(image) == fixture.rgbSHA256, "\(fixture)")
    }

    @Test(arguments: FaceFixtures.cases)
    func detectorBoxAndLandmarksMatchMediaPipe(_ fixture: FaceFixtures.Case) throws {
        var analyzer = try FaceFixtures.analyzer()
        let image = try #require(FaceFixtures.image(fixture))
        let reference = try #require(fixture.detections.first)
        let faces = try analyzer.detectFaces(bgr: image, width: fixture.width, height: fixture.height)
        try #require(faces.count == fixture.detections.count, "\(fixture): \(faces)")
        let face = faces[0]

        // Box: every edge within 3% of the reference box width.
        let box = reference.box
        let ours = SIMD4(face.x, face.y, face.x + face.width, face.y + face.height)
        let theirs = SIMD4(box.x, box.y, box.x + box.z, box.y + box.w)
        let boxError = (ours - theirs).replacing(with: -(ours - theirs), where: ours - theirs .< 0).max() / box.z
        #expect(boxError < 0.03, "\(fixture): box \(ours) vs \(theirs)")
        #expect(abs(face.score - reference.score) < 0.02, "\(fixture): score \(face.score) vs \(reference.score)")

        // Landmarks: mean distance within 1.5% of the face width (points 234 to 454).
        let result = try analyzer.landmarks(bgr: image, width: fixture.width, height: fixture.height, face: face)
        try #require(result.points.count == 468)
        let refPoints = fixture.landmarks
        let span = SIMD2(refPoints[454].x - refPoints[234].x, refPoints[454].y - refPoints[234].y)
        let faceWidth = (span * span).sum().squareRoot()
        var total: Float = 0, zTotal: Float = 0
        for (a, b) in zip(result.points, refPoints) {
            let d = SIMD2(a.x - b.x, a.y - b.y)
            total += (d * d).sum().squareRoot()
            zTotal += abs(a.z - b.z)
        }
        let meanError = total / Float(refPoints.count) / faceWidth
        let zError = zTotal / Float(refPoints.count) / faceWidth
        print("face fixture \(fixture): box edge error \(boxError * 100)% of box width, landmark mean error \(meanError * 100)% (z \(zError * 100)%) of face width \(faceWidth) px")
        #expect(meanError < 0.015, "\(fixture)")
        #expect(zError < 0.015, "\(fixture)")
    }
}
