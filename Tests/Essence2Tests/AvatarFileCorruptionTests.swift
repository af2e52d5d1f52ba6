import Testing
@testable import Essence2Runtime
@testable import Essence2Vision
@testable import Essence2Authoring
#if canImport(Glibc)
import Glibc
#endif

@Suite struct AvatarFileCorruptionTests {
    private let valid = AvatarFile.encode(AvatarFixture.small())

    private func kind(_ bytes: [UInt8]) -> AvatarFileError.Kind? {
        AvatarFixture.readError(bytes)?.kind
    }

    @Test func missingFileIsReportedAsMissing() {
        #expect(throws: AvatarFileError(.missing, "no such file: /nonexistent/dir/a.imx")) {
            try AvatarFile.read(path: "/nonexistent/dir/a.imx")
        }
    }

    @Test func directoryIsUnreadable() {
        do {
            _ = try AvatarFile.read(path: "/tmp")
            Issue.record("a directory was read as an avatar")
        } catch {
            #expect(error.kind == .unreadable)
        }
    }

    @Test func emptyFileIsTruncated() throws {
        let path = AvatarFixture.temporaryPath("empty.imx")
        defer { unlink(path) }
        let file = try #require(fopen(path, "wb"))
        fclose(file)
        #expect(throws: AvatarFileError(.truncated, "the file is empty")) { try AvatarFile.read(path: path) }
        #expect(kind([]) == .truncated)
    }

    @Test func everyTruncationIsRejectedAsTruncated() {
        // Every cut inside the header and table, then every 7th byte, and the last few bytes.
        var cuts = Array(1..<600)
        cuts += stride(from: 600, to: valid.count, by: 7)
        cuts += (valid.count - 5)..<valid.count
        for cut in cuts {
            let error = AvatarFixture.readError(Array(valid[0..<cut]))
            #expect(error?.kind == .truncated, "cut at \(cut): \(String(describing: error))")
        }
    }

    @Test func everyFlippedByteInTheHeaderAndTableIsRejected() throws {
        let tableEnd = AvatarFileFormat.headerSize + 5 * AvatarFileFormat.sectionEntrySize
        for position in 0..<tableEnd {
            for pattern: UInt8 in [0x01, 0x80, 0xFF] {
                var bytes = valid
                bytes[position] ^= pattern
                let error = AvatarFixture.readError(bytes)
                let expected: Set<AvatarFileError.Kind>
                switch position {
                case 0..<8: expected = [.notAvatar]
                case 8..<12: expected = [.version]
                case 16..<24: expected = [.truncated, .corrupt, .tooLarge]  // the declared file size
                case 12..<16: expected = [.corrupt, .truncated, .checksum]  // the section count
                default: expected = [.checksum]                              // covered by the table sha256
                }
                #expect(error.map { expected.contains($0.kind) } == true,
                        "byte \(position) ^ \(pattern): \(String(describing: error))")
            }
        }
    }

    @Test func aFlippedByteInEachSectionFailsThatSectionsChecksum() throws {
        let layout = try AvatarFileLayout.parse(valid)
        for section in layout.sections {
            for position in [section.offset, section.offset + section.storedLength / 2, section.offset + section.storedLength - 1] {
                var bytes = valid
                bytes[position] ^= 0x10
                #expect(AvatarFixture.readError(bytes) == AvatarFileError(.checksum, "checksum mismatch in section '\(section.name)'"))
            }
        }
    }

    @Test func randomMutationsAnywhereAreAlwaysRejected() {
        var state: UInt64 = 0x1234_5678
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        for _ in 0..<300 {
            var bytes = valid
            for _ in 0..<(1 + next() % 4) {
                bytes[next() % bytes.count] ^= UInt8(1 + next() % 255)
            }
            if bytes != valid { #expect(AvatarFixture.readError(bytes) != nil) }
        }
    }

    @Test func randomGarbageIsNotAnAvatar() {
        var state: UInt32 = 99
        for length in [1, 7, 8, 63, 64, 65, 1000, 5000] {
            let bytes = (0..<length).map { _ -> UInt8 in
                state = state &* 1_664_525 &+ 1_013_904_223
                return UInt8(truncatingIfNeeded: state >> 24)
            }
            #expect(kind(bytes) == .notAvatar)
        }
    }

    @Test func wrongMagicIsNotAnAvatar() {
        var bytes = valid
        bytes[1] = UInt8(ascii: "P")  // \x89PMX...
        #expect(kind(bytes) == .notAvatar)
        #expect(kind(Array("GIF89a".utf8) + [UInt8](repeating: 0, count: 100)) == .notAvatar)
    }

    @Test func version2IsAVersionError() {
        var bytes = valid
        AvatarFixture.writeU32(&bytes, 8, 2)
        #expect(AvatarFixture.readError(bytes) == AvatarFileError(.version, "unsupported .imx version 2 (this library reads version 1): use a newer essence2"))
        AvatarFixture.reseal(&bytes)
        #expect(kind(bytes) == .version)
    }

    @Test func absurdWidthOrHeightIsTooLargeAndZeroIsCorrupt() {
        for (width, height, expected) in [(UInt32(100_000), UInt32(48), AvatarFileError.Kind.tooLarge),
                                          (64, UInt32.max, .tooLarge), (9000, 9000, .tooLarge), (0, 48, .corrupt)] {
            var bytes = valid
            AvatarFixture.writeU32(&bytes, 24, width)
            AvatarFixture.writeU32(&bytes, 28, height)
            AvatarFixture.reseal(&bytes)
            #expect(kind(bytes) == expected, "\(width)x\(height)")
        }
    }

    @Test func sizeThatDisagreesWithTheImageSectionIsCorrupt() {
        var bytes = valid
        AvatarFixture.writeU32(&bytes, 24, 65)
        AvatarFixture.reseal(&bytes)
        #expect(kind(bytes) == .corrupt)
    }

    @Test func declaredFileSizeMustMatchTheFile() {
        var bigger = valid
        AvatarFixture.writeU64(&bigger, 16, UInt64(valid.count + 1))
        AvatarFixture.reseal(&bigger)
        #expect(kind(bigger) == .truncated)
        var huge = valid
        AvatarFixture.writeU64(&huge, 16, UInt64.max)
        AvatarFixture.reseal(&huge)
        #expect(kind(huge) == .tooLarge)
        var trailing = valid + [0]
        AvatarFixture.reseal(&trailing)
        #expect(kind(trailing) == .corrupt)
    }

    @Test func sectionCountOutOfRangeIsCorrupt() {
        for count: UInt32 in [0, 33, 1_000_000, UInt32.max] {
            var bytes = valid
            AvatarFixture.writeU32(&bytes, 12, count)
            #expect(kind(bytes) == .corrupt, "count \(count)")
        }
    }

    @Test func sectionLengthPointingPastTheEndIsCorrupt() throws {
        for name in ["manifest", "image", "headMask"] {
            for length in [UInt64(valid.count), UInt64(Int.max), UInt64.max] {
                var bytes = valid
                let entry = try #require(AvatarFixture.entryOffset(bytes, name))
                AvatarFixture.writeU64(&bytes, entry + 32, length)
                AvatarFixture.reseal(&bytes)
                let error = AvatarFixture.readError(bytes)
                #expect(error?.kind == .corrupt)
                #expect(error?.reason.contains("extends past the end") == true, "\(String(describing: error))")
            }
        }
        var bytes = valid
        let entry = try #require(AvatarFixture.entryOffset(bytes, "mesh"))
        AvatarFixture.writeU64(&bytes, entry + 24, UInt64.max - 3)  // offset past the end
        AvatarFixture.reseal(&bytes)
        #expect(kind(bytes) == .corrupt)
    }

    @Test func hugeDeclaredDecodedLengthIsRejectedBeforeDecoding() throws {
        var bytes = valid
        let entry = try #require(AvatarFixture.entryOffset(bytes, "headMask"))
        AvatarFixture.writeU64(&bytes, entry + 40, 1 << 40)
        AvatarFixture.reseal(&bytes)
        #expect(kind(bytes) == .tooLarge)
        AvatarFixture.writeU64(&bytes, entry + 40, 100_000_000)  // more than 65x its stored bytes
        AvatarFixture.reseal(&bytes)
        #expect(kind(bytes) == .corrupt)
    }

    @Test func overlappingOrMisorderedSectionsAreCorrupt() throws {
        var bytes = valid
        let entry = try #require(AvatarFixture.entryOffset(bytes, "landmarks"))
        let offset = AvatarFixture.readU64(bytes, entry + 24)
        AvatarFixture.writeU64(&bytes, entry + 24, offset - 1)
        AvatarFixture.reseal(&bytes)
        #expect(kind(bytes) == .corrupt)
    }

    @Test func badSectionNamesAndDuplicatesAreCorrupt() throws {
        var renamed = valid
        let entry = try #require(AvatarFixture.entryOffset(renamed, "mesh"))
        renamed[entry + 1] = 0x07
        AvatarFixture.reseal(&renamed)
        #expect(kind(renamed) == .corrupt)
        var duplicate = valid
        duplicate.replaceSubrange(entry..<(entry + 16), with: Array("image".utf8) + [UInt8](repeating: 0, count: 11))
        AvatarFixture.reseal(&duplicate)
        #expect(AvatarFixture.readError(duplicate)?.reason == "section 'image' appears twice")
        var unknownEncoding = valid
        AvatarFixture.writeU32(&unknownEncoding, entry + 16, 7)
        AvatarFixture.reseal(&unknownEncoding)
        #expect(kind(unknownEncoding) == .corrupt)
    }

    @Test func missingRequiredSectionIsCorrupt() throws {
        var bytes = valid
        let entry = try #require(AvatarFixture.entryOffset(bytes, "landmarks"))
        bytes.replaceSubrange(entry..<(entry + 16), with: Array("notes".utf8) + [UInt8](repeating: 0, count: 11))
        AvatarFixture.reseal(&bytes)
        #expect(AvatarFixture.readError(bytes) == AvatarFileError(.corrupt, "the file has no 'landmarks' section"))
    }

    @Test func unknownExtraSectionsAreAcceptedAndChecksummed() throws {
        let avatar = AvatarFixture.small(withMask: false)
        let base = AvatarFile.encode(avatar)
        // Rename nothing; append a section by rebuilding with the mask slot renamed.
        let withMask = AvatarFile.encode(AvatarFixture.small())
        var bytes = withMask
        let entry = try #require(AvatarFixture.entryOffset(bytes, "headMask"))
        bytes.replaceSubrange(entry..<(entry + 16), with: Array("x-notes".utf8) + [UInt8](repeating: 0, count: 9))
        AvatarFixture.reseal(&bytes)
        let decoded = try AvatarFile.read(bytes: bytes)
        #expect(decoded.headMask.isEmpty)
        #expect(decoded.pixels == (try AvatarFile.read(bytes: base)).pixels)
    }

    @Test(arguments: [
        "", "garbage", "{", "[]", "{\"format\": \"essence2-avatar\"}", "\u{FF}\u{FE}", "{\"a\":1,}",
        "{\"format\":\"essence2-avatar\",\"version\":1,\"name\":\"x\",\"width\":64,\"height\":48,\"seed\":\"0x1\",\"headBox\":[1,2,3]}",
        "{\"format\":\"essence2-avatar\",\"version\":1,\"name\":\"\",\"width\":64,\"height\":48,\"seed\":\"0x1\",\"headBox\":[0,0,8,8]}",
        "{\"format\":\"essence2-avatar\",\"version\":1,\"name\":\"x\",\"width\":64,\"height\":48,\"seed\":\"12\",\"headBox\":[0,0,8,8]}",
        "{\"format\":\"essence2-avatar\",\"version\":1,\"name\":\"x\",\"width\":64,\"height\":48,\"seed\":\"0x1\",\"headBox\":[0,0,8.5,8]}",
        "{\"format\":\"essence2-avatar\",\"version\":1,\"name\":\"x\",\"width\":64,\"height\":48,\"seed\":\"0x1\",\"headBox\":[60,0,8,8]}",
        "{\"format\":\"essence2-avatar\",\"version\":1,\"name\":\"x\",\"width\":65,\"height\":48,\"seed\":\"0x1\",\"headBox\":[0,0,8,8]}",
        "{\"format\":\"essence2-avatar\",\"version\":1,\"name\":\"x\",\"width\":64,\"height\":48,\"seed\":\"0x1\",\"headBox\":[0,0,8,8],\"info\":[]}",
        // Crafted boxes whose x + width or y + height overflow 64 bits (these trapped before the bounds were
        // checked one by one): a clear "corrupt", never a crash.
        "{\"format\":\"essence2-avatar\",\"version\":1,\"name\":\"x\",\"width\":64,\"height\":48,\"seed\":\"0x1\",\"headBox\":[1,1,9223372036854775807,8]}",
        "{\"format\":\"essence2-avatar\",\"version\":1,\"name\":\"x\",\"width\":64,\"height\":48,\"seed\":\"0x1\",\"headBox\":[1,1,8,9223372036854775807]}",
        "{\"format\":\"essence2-avatar\",\"version\":1,\"name\":\"x\",\"width\":64,\"height\":48,\"seed\":\"0x1\",\"headBox\":[9223372036854775807,1,8,8]}",
        "{\"format\":\"essence2-avatar\",\"version\":1,\"name\":\"x\",\"width\":64,\"height\":48,\"seed\":\"0x1\",\"headBox\":[-9223372036854775808,1,8,8]}",
    ])
    func manifestGarbageIsCorrupt(manifest: String) {
        let bytes = AvatarFixture.replacingSection(valid, "manifest", with: Array(manifest.utf8))
        let error = AvatarFixture.readError(bytes)
        #expect(error?.kind == .corrupt, "\(manifest): \(String(describing: error))")
    }

    @Test func manifestDeclaringAnotherVersionIsAVersionError() {
        let manifest = "{\"format\":\"essence2-avatar\",\"version\":2,\"name\":\"x\",\"width\":64,\"height\":48,\"seed\":\"0x1\",\"headBox\":[0,0,8,8]}"
        let bytes = AvatarFixture.replacingSection(valid, "manifest", with: Array(manifest.utf8))
        #expect(kind(bytes) == .version)
    }

    @Test func aValidReplacementManifestIsAccepted() throws {
        let manifest = "{\"format\":\"essence2-avatar\",\"version\":1,\"name\":\"Renamed\",\"width\":64,\"height\":48,\"seed\":\"0xff\",\"headBox\":[0,0,8,8],\"extra\":{\"ignored\":[1,2]}}"
        let avatar = try AvatarFile.read(bytes: AvatarFixture.replacingSection(valid, "manifest", with: Array(manifest.utf8)))
        #expect(avatar.name == "Renamed" && avatar.seed == 255 && avatar.headBox == PixelRect(x: 0, y: 0, width: 8, height: 8))
    }

    @Test func malformedGeometrySectionsAreCorrupt() {
        var fixture = AvatarFixture.small()
        fixture.mesh.triangles[3] = SIMD3(0, 1, 478)
        #expect(kind(AvatarFixture.replacingSection(valid, "mesh", with: fixture.mesh.encodedSection())) == .corrupt)

        fixture = AvatarFixture.small()
        fixture.mesh.points.removeLast()
        #expect(kind(AvatarFixture.replacingSection(valid, "mesh", with: fixture.mesh.encodedSection())) == .corrupt)

        fixture = AvatarFixture.small()
        fixture.landmarks.points["chin"] = SIMD2(500, 10)
        #expect(kind(AvatarFixture.replacingSection(valid, "landmarks", with: fixture.landmarks.encodedSection())) == .corrupt)

        fixture = AvatarFixture.small()
        fixture.landmarks.lipsOuter[2] = SIMD2(.nan, 1)
        #expect(kind(AvatarFixture.replacingSection(valid, "landmarks", with: fixture.landmarks.encodedSection())) == .corrupt)

        var landmarkBytes = AvatarFixture.small().landmarks.encodedSection()
        landmarkBytes.removeLast()
        #expect(kind(AvatarFixture.replacingSection(valid, "landmarks", with: landmarkBytes)) == .corrupt)
        #expect(kind(AvatarFixture.replacingSection(valid, "landmarks", with: [0xFF, 0xFF, 0xFF, 0xFF])) == .corrupt)
        #expect(kind(AvatarFixture.replacingSection(valid, "mesh", with: [0xFF, 0xFF, 0, 0, 1, 0, 0, 0])) == .corrupt)
        #expect(kind(AvatarFixture.replacingSection(valid, "image", with: [1, 2, 3])) == .corrupt)
        #expect(kind(AvatarFixture.replacingSection(valid, "headMask", with: [1, 2, 3])) == .corrupt)
    }

    @Test func malformedRunLengthDataIsCorrupt() {
        let length = 64 * 48
        for data: [UInt8] in [[200], [5, 1, 2], [255, 7, 255, 7], RunLength.encode([UInt8](repeating: 9, count: length - 1))] {
            let bytes = AvatarFixture.replacingSection(valid, "headMask", with: data, encoding: 1, length: length)
            #expect(kind(bytes) == .corrupt)
        }
        let good = AvatarFixture.replacingSection(valid, "headMask", with: RunLength.encode([UInt8](repeating: 9, count: length)),
                                                  encoding: 1, length: length)
        #expect(kind(good) == nil)
    }
}
