import Testing
@testable import Essence2Runtime
@testable import Essence2Vision
@testable import Essence2Authoring

@Suite struct PortraitFramingTests {
    @Test func portraitsUpTo1920KeepTheirSizeAndLargerOnesScaleDownKeepingAspect() {
        #expect(PortraitFraming.defaultSize(width: 512, height: 600) == (512, 600))
        #expect(PortraitFraming.defaultSize(width: 1920, height: 1080) == (1920, 1080))
        #expect(PortraitFraming.defaultSize(width: 4000, height: 3000) == (1920, 1440))
        #expect(PortraitFraming.defaultSize(width: 3000, height: 8000) == (720, 1920))
    }

    @Test func cropRegionHasTheCanvasAspectAndStaysInsideThePortrait() {
        let face: (x: Float, y: Float, width: Float, height: Float) = (171, 147, 194, 194)
        let tall = PortraitFraming.cropRegion(imageWidth: 512, imageHeight: 600, face: face, canvasWidth: 1080, canvasHeight: 1920)
        #expect(tall.height == 600 && abs(Double(tall.width) - 600 * 1080 / 1920) <= 1)
        #expect(tall.x >= 0 && tall.maxX <= 512 && tall.y == 0)
        // Centred on the face horizontally.
        #expect(abs(Double(tall.x) + Double(tall.width) / 2 - 268) <= 1)
        let wide = PortraitFraming.cropRegion(imageWidth: 512, imageHeight: 600, face: face, canvasWidth: 1920, canvasHeight: 1080)
        #expect(wide.width == 512 && wide.x == 0 && wide.y >= 0 && wide.maxY <= 600)
        // A face at the very edge moves the region only as far as the portrait allows.
        let edge = PortraitFraming.cropRegion(imageWidth: 1000, imageHeight: 500, face: (900, 10, 90, 90),
                                              canvasWidth: 400, canvasHeight: 400)
        #expect(edge == PixelRect(x: 500, y: 0, width: 500, height: 500))
    }

    @Test func cropRegionSurvivesNonFiniteFaceBoxesAndEmptySizes() {
        let region = PortraitFraming.cropRegion(imageWidth: 300, imageHeight: 200, face: (.nan, .infinity, 10, 10),
                                                canvasWidth: 100, canvasHeight: 100)
        #expect(region.width == 200 && region.height == 200 && region.x >= 0 && region.maxX <= 300)
        #expect(PortraitFraming.cropRegion(imageWidth: 0, imageHeight: 0, face: (0, 0, 0, 0), canvasWidth: 0,
                                           canvasHeight: 5).width == 0)
    }

    @Test func enlargementIsTheLargerAxisFactorSoTheSamplePortraitAt1080x1920IsEnlarged3Point2Times() {
        // avatars/sources/grace_hopper.jpg (512x600) cropped for 1080x1920: a 338x600 region.
        let tall = PortraitFraming.enlargement(region: PixelRect(x: 100, y: 0, width: 338, height: 600), toWidth: 1080, height: 1920)
        #expect(abs(tall - 3.2) < 0.001)
        #expect(tall > PortraitFraming.softEnlargement)
        #expect(PortraitFraming.enlargement(region: PixelRect(x: 0, y: 0, width: 512, height: 512), toWidth: 300, height: 300) < 1)
        #expect(PortraitFraming.enlargement(region: PixelRect(x: 0, y: 0, width: 100, height: 200), toWidth: 100, height: 400) == 2)
        #expect(PortraitFraming.enlargement(region: PixelRect(x: 0, y: 0, width: 0, height: 5), toWidth: 10, height: 10) == 0)
    }

    @Test func resampleCropsThenResizesAndRefusesBadBuffers() throws {
        // 4x2 image whose pixel value is its x coordinate.
        var pixels: [UInt8] = []
        for _ in 0..<2 { for x in 0..<4 { pixels += [UInt8(x), UInt8(x), UInt8(x)] } }
        let right = try #require(PortraitFraming.resample(bgr: pixels, width: 4, height: 2,
                                                          region: PixelRect(x: 2, y: 0, width: 2, height: 2),
                                                          toWidth: 2, height: 2))
        #expect(right == [2, 2, 2, 3, 3, 3, 2, 2, 2, 3, 3, 3])
        #expect(PortraitFraming.resample(bgr: [1, 2], width: 4, height: 2, region: PixelRect(x: 0, y: 0, width: 4, height: 2),
                                         toWidth: 2, height: 2) == nil)
        #expect(PortraitFraming.resample(bgr: pixels, width: 4, height: 2, region: PixelRect(x: 9, y: 9, width: 4, height: 2),
                                         toWidth: 2, height: 2) == nil)
        #expect(PortraitFraming.resample(bgr: pixels, width: 4, height: 2, region: PixelRect(x: 0, y: 0, width: 4, height: 2),
                                         toWidth: 100_000, height: 2) == nil)
    }

    @Test func shippedModelFilesMatchTheirSha256AndAChangedByteIsRefused() throws {
        for model in FaceModelFile.allCases {
            let bytes = try BinaryFile.read(path: TestAvatar.repositoryRoot + "/models/" + model.fileName,
                                            maxSize: FaceModelFile.maxSize)
            #expect(model.problem(with: bytes) == nil, "\(model.fileName)")
            var damaged = bytes
            damaged[damaged.count / 2] ^= 0x10
            #expect(model.problem(with: damaged)?.contains("sha256") == true)
        }
    }

    @Test func landmarksAndMeshWrittenAsJSONAreReadBackByTheBuilder() throws {
        let avatar = TestAvatar.grace
        let landmarkJSON = avatar.landmarks.jsonBytes(image: "grace.jpg", width: avatar.width, height: avatar.height,
                                                      model: "test")
        let meshJSON = avatar.mesh.jsonBytes(image: "grace.jpg", width: avatar.width, height: avatar.height, model: "test")
        let rebuilt = try AvatarBuilder.build(name: "again", bgr: avatar.pixels, width: avatar.width, height: avatar.height,
                                              landmarksJSON: landmarkJSON, meshJSON: meshJSON)
        #expect(rebuilt.landmarks.faceBox == avatar.landmarks.faceBox)
        #expect(rebuilt.landmarks.mouthBox == avatar.landmarks.mouthBox)
        #expect(rebuilt.mesh.triangles == avatar.mesh.triangles)
        for (name, point) in avatar.landmarks.points {
            let back = try #require(rebuilt.landmarks.points[name])
            #expect(abs(back.x - point.x) <= 0.006 && abs(back.y - point.y) <= 0.006, "\(name)")
        }
        for (a, b) in zip(rebuilt.mesh.points, avatar.mesh.points) {
            #expect(abs(a.x - b.x) <= 0.006 && abs(a.y - b.y) <= 0.006 && abs(a.z - b.z) <= 0.006)
        }
    }
}
