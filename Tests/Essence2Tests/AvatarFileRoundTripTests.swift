import Testing
@testable import Essence2Runtime
@testable import Essence2Vision
@testable import Essence2Authoring
#if canImport(Glibc)
import Glibc
#endif

@Suite struct AvatarFileRoundTripTests {
    private func expectSame(_ a: Avatar, _ b: Avatar) {
        #expect(a.name == b.name)
        #expect(a.width == b.width && a.height == b.height)
        #expect(a.pixels == b.pixels)
        #expect(a.landmarks == b.landmarks)
        #expect(a.mesh == b.mesh)
        #expect(a.headBox == b.headBox)
        #expect(a.headMask == b.headMask)
        #expect(a.seed == b.seed)
    }

    @Test func encodeThenReadGivesBackTheSameAvatar() throws {
        for avatar in [AvatarFixture.small(), AvatarFixture.small(withMask: false), AvatarFixture.small(width: 33, height: 71)] {
            let decoded = try AvatarFile.read(bytes: AvatarFile.encode(avatar))
            expectSame(avatar, decoded)
        }
    }

    @Test func encodingIsDeterministic() {
        let avatar = AvatarFixture.small()
        let info = ["source": "test", "licence": "public domain", "a": "b"]
        #expect(AvatarFile.encode(avatar, info: info) == AvatarFile.encode(avatar, info: info))
    }

    @Test func maskSectionIsRunLengthCodedAndImageStaysRaw() throws {
        let bytes = AvatarFile.encode(AvatarFixture.small())
        let layout = try AvatarFileLayout.parse(bytes)
        #expect(layout.section("headMask")?.encoding == .rle8)
        #expect(layout.section("headMask")!.storedLength < layout.section("headMask")!.length)
        #expect(layout.section("image")?.encoding == .raw)
        #expect(layout.sections.map(\.name) == ["manifest", "image", "landmarks", "mesh", "headMask"])
    }

    @Test func writeThenReadFromDiskGivesBackTheSameAvatar() throws {
        let path = AvatarFixture.temporaryPath("roundtrip.imx")
        defer { unlink(path) }
        let avatar = AvatarFixture.small()
        try AvatarFile.write(avatar, info: ["source": "unit test"], to: path)
        expectSame(avatar, try AvatarFile.read(path: path))
        #expect(access(path + ".tmp\(getpid())", F_OK) != 0)  // no temporary left behind
    }

    @Test func aFailedWriteNamesTheFileAskedForAndLeavesNoTemporaryFile() throws {
        // Into a missing directory: the error names the path given, not the temporary file.
        let missing = AvatarFixture.temporaryPath("no-such-dir") + "/a.imx"
        do {
            try AvatarFile.write(AvatarFixture.small(), to: missing)
            Issue.record("writing into a missing directory succeeded")
        } catch {
            #expect("\(error)".contains("cannot write \(missing)"))
            #expect(!"\(error)".contains(".tmp"))
        }
        // Onto an existing directory: the rename fails after the temporary file was written; it is removed.
        let directory = AvatarFixture.temporaryPath("a-directory.imx")
        #expect(mkdir(directory, 0o755) == 0)
        defer { rmdir(directory) }
        do {
            try AvatarFile.write(AvatarFixture.small(), to: directory)
            Issue.record("writing over a directory succeeded")
        } catch {
            #expect("\(error)".contains("cannot write \(directory)"))
            #expect(!"\(error)".contains(".tmp"))
        }
        #expect(access(directory + ".tmp\(getpid())", F_OK) != 0)
    }

    @Test func writeRefusesAnInvalidAvatar() {
        var avatar = AvatarFixture.small()
        avatar.pixels.removeLast()
        let path = AvatarFixture.temporaryPath("invalid.imx")
        #expect(throws: AvatarFileError.self) { try AvatarFile.write(avatar, to: path) }
        #expect(access(path, F_OK) != 0)
    }

    @Test func manifestCarriesNameSeedHeadBoxAndInfo() throws {
        let avatar = AvatarFixture.small()
        let bytes = AvatarFile.encode(avatar, info: ["licence": "CC0 \"quoted\"\n"])
        let layout = try AvatarFileLayout.parse(bytes)
        let manifest = try AvatarManifest.decode(Array(bytes[layout.section("manifest")!.range]))
        #expect(manifest.name == avatar.name)
        #expect(manifest.seed == 0xDEAD_BEEF_0123_4567)
        #expect(manifest.headBox == avatar.headBox)
        #expect(manifest.info == ["licence": "CC0 \"quoted\"\n"])
    }

    @Test func describeListsSectionsWithChecksumsAndStatus() {
        let bytes = AvatarFile.encode(AvatarFixture.small(), info: ["source": "unit test"])
        let text = AvatarFile.describe(bytes: bytes)
        for name in ["manifest", "image", "landmarks", "mesh", "headMask"] {
            #expect(text.contains("  \(name) "))
        }
        #expect(!text.contains("FAIL"))
        #expect(text.contains("\"source\": \"unit test\""))
        #expect(text.contains("mesh: 478 points, 476 triangles"))
        #expect(text.hasSuffix("status: valid\n"))
    }

    @Test func describeMarksTheDamagedSectionAndTheReason() throws {
        var bytes = AvatarFile.encode(AvatarFixture.small())
        let image = try #require(try AvatarFileLayout.parse(bytes).section("image"))
        bytes[image.offset + 10] ^= 0x40
        let text = AvatarFile.describe(bytes: bytes)
        let imageLine = try #require(text.split(separator: "\n").first { $0.hasPrefix("  image ") })
        #expect(imageLine.hasSuffix("FAIL"))
        #expect(text.hasSuffix("status: INVALID (checksum): checksum mismatch in section 'image'\n"))
        #expect(AvatarFile.describe(path: "/nonexistent/x.imx").contains("status: INVALID (missing)"))
    }

    @Test(arguments: [("avatars/grace-hopper.imx", 512, 600), ("avatars/astronaut.imx", 512, 512)])
    func shippedAvatarsAreValidAtTheirPortraitSize(file: String, width: Int, height: Int) throws {
        let path = AvatarFixture.repositoryRoot + "/" + file
        let avatar = try AvatarFile.read(path: path)
        #expect(avatar.width == width && avatar.height == height)
        #expect(avatar.mesh.points.count == 478)
        #expect(avatar.headMask.count == width * height)
        #expect(avatar.headBox.width == avatar.headBox.height)
        let face = avatar.landmarks.faceBox, head = avatar.headBox
        #expect(head.x <= face.x && head.y <= face.y && head.maxX >= face.maxX && head.maxY >= face.maxY)
        let size = try AvatarFixture.repositoryFile(file).count
        #expect(size < 2 << 20)
        let text = AvatarFile.describe(path: path)
        #expect(text.contains("\"licence\": \"public domain"))
        #expect(text.hasSuffix("status: valid\n"))
    }
}
