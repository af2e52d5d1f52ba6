import Testing
@testable import Essence2Runtime
@testable import Essence2Authoring

/// Seeded mutation fuzzing of the parsers of untrusted input (.imx files and the JSON they and the landmark
/// files hold; the .tflite reader has its own in TFLiteFuzzTests). These run on the checked build (no target
/// is compiled with -Ounchecked): an out-of-bounds read or an overflow would trap and fail the run, so every
/// mutant must come back as a value or a thrown error.
@Suite struct ReaderFuzzTests {
    /// A small deterministic generator (PCG-style LCG), so every run tries the same mutants.
    struct Mutator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33) % max(bound, 1)
        }

        /// 1 to 4 edits: flip a byte, set it to an edge value, drop a run, or repeat a run.
        mutating func mutate(_ input: [UInt8], within range: Range<Int>? = nil) -> [UInt8] {
            var bytes = input
            let span = range ?? 0..<bytes.count
            for _ in 0...next(4) {
                guard !span.isEmpty, span.upperBound <= bytes.count else { break }
                let at = span.lowerBound + next(span.count)
                switch next(4) {
                case 0: bytes[at] ^= UInt8(1 + next(255))
                case 1: bytes[at] = [0, 0x7F, 0x80, 0xFF, 0x22, 0x5B, 0x7B][next(7)]
                case 2: bytes.removeSubrange(at..<min(bytes.count, at + 1 + next(8)))
                default: bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + 1 + next(8))], at: at)
                }
            }
            return bytes
        }
    }

    @Test func mutatedManifestsAndLandmarkJSONParseOrThrow() throws {
        let manifest = Array(#"{"format":"essence2-avatar","version":1,"name":"x","width":64,"height":48,"seed":"0x1","headBox":[0,0,8,8],"info":{"a":"b\u00e9\ud83d\ude00"}}"#.utf8)
        let landmarks = try AvatarFixture.repositoryFile("avatars/sources/grace_hopper.landmarks.json")
        var mutator = Mutator(state: 0xE55E_2001)
        var parsed = 0, refused = 0
        for round in 0..<4000 {
            let input = mutator.mutate(round % 2 == 0 ? manifest : landmarks)
            do {
                _ = try JSONParser.parse(input)
                parsed += 1
            } catch {
                refused += 1
            }
            _ = try? AvatarManifest.decode(input)
            _ = try? FaceLandmarks.parseJSON(input, width: 512, height: 600)
            _ = try? FaceMesh.parseJSON(input, width: 512, height: 600)
        }
        #expect(parsed + refused == 4000)
        #expect(refused > 1000, "most mutants are not JSON (\(refused) refused)")
    }

    @Test func mutatedSectionsThatPassTheirChecksumsAreReadOrRefused() {
        let valid = AvatarFile.encode(AvatarFixture.small())
        var mutator = Mutator(state: 0x1AB5_EC7)
        var accepted = 0, refused = 0
        // Mutate inside the sections (after the table), then reseal every checksum, so each mutant reaches the
        // manifest, landmark, mesh, run-length and mask decoders instead of stopping at a checksum.
        let tableEnd = AvatarFileFormat.headerSize
            + Int(AvatarFixture.readU32(valid, 12)) * AvatarFileFormat.sectionEntrySize
        for round in 0..<1500 {
            var bytes = mutator.mutate(valid, within: round % 5 == 0 ? 0..<tableEnd : tableEnd..<valid.count)
            AvatarFixture.reseal(&bytes)
            if AvatarFixture.readError(bytes) == nil { accepted += 1 } else { refused += 1 }
        }
        #expect(accepted + refused == 1500)
        #expect(refused > 0)
    }

    @Test func mutatedSectionContentsReplacedWholeAreReadOrRefused() throws {
        let valid = AvatarFile.encode(AvatarFixture.small())
        let sections = [AvatarFileFormat.Section.manifest, AvatarFileFormat.Section.landmarks,
                        AvatarFileFormat.Section.mesh, AvatarFileFormat.Section.headMask]
        var mutator = Mutator(state: 0x5EC7_1045)
        let avatar = AvatarFixture.small()
        let contents: [String: [UInt8]] = [
            AvatarFileFormat.Section.manifest: AvatarManifest(name: avatar.name, width: avatar.width, height: avatar.height,
                                                              seed: avatar.seed, headBox: avatar.headBox, info: [:]).encoded(),
            AvatarFileFormat.Section.landmarks: avatar.landmarks.encodedSection(),
            AvatarFileFormat.Section.mesh: avatar.mesh.encodedSection(),
            AvatarFileFormat.Section.headMask: RunLength.encode(avatar.headMask),
        ]
        var outcomes = 0
        for round in 0..<800 {
            let name = sections[round % sections.count]
            let original = try #require(contents[name])
            let data = mutator.mutate(original)
            // The mask is stored run-length coded (encoding 1) with the decoded length the image needs.
            let bytes = name == AvatarFileFormat.Section.headMask
                ? AvatarFixture.replacingSection(valid, name, with: data, encoding: 1, length: avatar.width * avatar.height)
                : AvatarFixture.replacingSection(valid, name, with: data)
            _ = AvatarFixture.readError(bytes)
            outcomes += 1
        }
        #expect(outcomes == 800)
    }
}
