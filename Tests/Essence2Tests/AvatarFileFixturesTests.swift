import Testing
@testable import Essence2Runtime
@testable import Essence2Vision
@testable import Essence2Authoring
#if canImport(Glibc)
import Glibc
#endif

/// Small synthetic avatars and helpers shared by the AvatarFile*Tests suites.
enum AvatarFixture {
    /// A 64x48 avatar with every section filled (landmarks, a 478-point mesh, a head mask), valid.
    static func small(width: Int = 64, height: Int = 48, withMask: Bool = true) -> Avatar {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                pixels[i] = UInt8((x * 4) & 255)
                pixels[i + 1] = UInt8((y * 5) & 255)
                pixels[i + 2] = UInt8((x * y) & 255)
            }
        }
        let w = Float(width), h = Float(height)
        var points: [String: SIMD2<Float>] = [:]
        for (i, name) in FaceLandmarks.requiredPointNames.enumerated() {
            points[name] = SIMD2(w * (0.2 + 0.04 * Float(i)), h * (0.8 - 0.04 * Float(i)))
        }
        let outer = (0..<20).map { k -> SIMD2<Float> in
            let angle = Float(k) / 20 * 2 * Float.pi
            return SIMD2(w * 0.5 + w * 0.12 * cosApprox(angle), h * 0.7 + h * 0.06 * sinApprox(angle))
        }
        let inner = outer.map { SIMD2(w * 0.5, h * 0.7) + ($0 - SIMD2(w * 0.5, h * 0.7)) * 0.6 }
        let landmarks = FaceLandmarks(points: points, lipsOuter: outer, lipsInner: inner,
                                      faceBox: PixelRect(x: width / 4, y: height / 6, width: width / 2, height: height * 2 / 3),
                                      mouthBox: PixelRect(x: width / 3, y: height * 3 / 5, width: width / 3, height: height / 5))
        let meshPoints: [SIMD3<Float>] = (0..<FaceMesh.mediaPipePointCount).map { (i: Int) -> SIMD3<Float> in
            let x: Float = Float((i * 37) % (width * 10)) / 10
            let y: Float = Float((i * 53) % (height * 10)) / 10
            return SIMD3<Float>(x, y, Float(i % 21) - 10)
        }
        let triangles: [SIMD3<UInt16>] = (0..<(FaceMesh.mediaPipePointCount - 2)).map { (i: Int) -> SIMD3<UInt16> in
            let a = UInt16(i)
            return SIMD3<UInt16>(a, a + 1, a + 2)
        }
        var mask: [UInt8] = []
        if withMask {
            mask = (0..<(width * height)).map { i in (i % width) > width / 2 ? 255 : 0 }
        }
        let side = min(width, height) / 2
        return Avatar(name: "Fixture \u{2014} small", width: width, height: height, pixels: pixels, landmarks: landmarks,
                      mesh: FaceMesh(points: meshPoints, triangles: triangles),
                      headBox: PixelRect(x: width / 4, y: 0, width: side, height: side), headMask: mask, seed: 0xDEAD_BEEF_0123_4567)
    }

    private static func sinApprox(_ x: Float) -> Float { Float(sin(Double(x))) }
    private static func cosApprox(_ x: Float) -> Float { Float(cos(Double(x))) }

    /// The repository root, from this file's path.
    static var repositoryRoot: String {
        var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)  // Tests/Essence2Tests/<file>
        return parts.joined(separator: "/")
    }

    /// A file in the repository, read with the avatar reader's own file reader.
    static func repositoryFile(_ relative: String) throws -> [UInt8] {
        try BinaryFile.read(path: repositoryRoot + "/" + relative, maxSize: 64 << 20)
    }

    /// A path for a scratch file unique to this process.
    static func temporaryPath(_ name: String) -> String {
        "/tmp/essence2-avatarfile-tests-\(getpid())-\(name)"
    }

    /// Recomputes every section sha256 (where the entry lies inside the file) and the header/table sha256,
    /// so that a deliberately altered file passes the checksums and reaches the later checks.
    static func reseal(_ bytes: inout [UInt8]) {
        let count = Int(readU32(bytes, 12))
        guard count >= 1, count <= AvatarFileFormat.maxSections else { return }
        let tableEnd = AvatarFileFormat.headerSize + count * AvatarFileFormat.sectionEntrySize
        guard tableEnd <= bytes.count else { return }
        for index in 0..<count {
            let entry = AvatarFileFormat.headerSize + index * AvatarFileFormat.sectionEntrySize
            let offset = Int(truncatingIfNeeded: readU64(bytes, entry + 24))
            let stored = Int(truncatingIfNeeded: readU64(bytes, entry + 32))
            guard offset >= 0, stored >= 0, offset <= bytes.count, stored <= bytes.count - offset else { continue }
            let digest = SHA256.hash(bytes, range: offset..<(offset + stored))
            bytes.replaceSubrange((entry + 48)..<(entry + 80), with: digest)
        }
        let digest = AvatarFileLayout.digestOfHeaderAndTable(bytes, tableEnd: tableEnd)
        bytes.replaceSubrange(32..<64, with: digest)
    }

    static func readU32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) }
    }

    static func readU64(_ bytes: [UInt8], _ at: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) }
    }

    static func writeU32(_ bytes: inout [UInt8], _ at: Int, _ value: UInt32) {
        for k in 0..<4 { bytes[at + k] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(k))) }
    }

    static func writeU64(_ bytes: inout [UInt8], _ at: Int, _ value: UInt64) {
        for k in 0..<8 { bytes[at + k] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(k))) }
    }

    /// Index and table-entry offset of the section called `name`.
    static func entryOffset(_ bytes: [UInt8], _ name: String) -> Int? {
        let count = Int(readU32(bytes, 12))
        for index in 0..<count {
            let entry = AvatarFileFormat.headerSize + index * AvatarFileFormat.sectionEntrySize
            let nameBytes = bytes[entry..<(entry + 16)].prefix { $0 != 0 }
            if String(decoding: nameBytes, as: UTF8.self) == name { return entry }
        }
        return nil
    }

    /// Replaces the stored bytes of section `name` (fixing up the offsets, lengths and file size), then reseals.
    static func replacingSection(_ bytes: [UInt8], _ name: String, with data: [UInt8], encoding: UInt32 = 0,
                                 length: Int? = nil) -> [UInt8] {
        let count = Int(readU32(bytes, 12))
        var sections: [(entry: [UInt8], data: [UInt8])] = []
        for index in 0..<count {
            let entry = AvatarFileFormat.headerSize + index * AvatarFileFormat.sectionEntrySize
            var entryBytes = Array(bytes[entry..<(entry + AvatarFileFormat.sectionEntrySize)])
            let offset = Int(readU64(bytes, entry + 24)), stored = Int(readU64(bytes, entry + 32))
            var content = Array(bytes[offset..<(offset + stored)])
            let nameBytes = entryBytes[0..<16].prefix { $0 != 0 }
            if String(decoding: nameBytes, as: UTF8.self) == name {
                content = data
                writeU32(&entryBytes, 16, encoding)
                writeU64(&entryBytes, 40, UInt64(length ?? data.count))
            }
            writeU64(&entryBytes, 32, UInt64(content.count))
            sections.append((entryBytes, content))
        }
        var out = Array(bytes[0..<AvatarFileFormat.headerSize])
        var offset = AvatarFileFormat.headerSize + count * AvatarFileFormat.sectionEntrySize
        for section in sections {
            var entry = section.entry
            writeU64(&entry, 24, UInt64(offset))
            out += entry
            offset += section.data.count
        }
        for section in sections { out += section.data }
        writeU64(&out, 16, UInt64(out.count))
        reseal(&out)
        return out
    }

    /// The error `AvatarFile.read(bytes:)` throws, or nil when it succeeds.
    static func readError(_ bytes: [UInt8]) -> AvatarFileError? {
        do {
            _ = try AvatarFile.read(bytes: bytes)
            return nil
        } catch {
            return error
        }
    }
}

@Suite struct AvatarFileFixturesTests {
    @Test func theFixtureAvatarIsValid() {
        #expect(AvatarFixture.small().validationProblem() == nil)
        #expect(AvatarFixture.small(withMask: false).validationProblem() == nil)
    }

    @Test func resealingAnUnchangedFileKeepsItIdentical() {
        let bytes = AvatarFile.encode(AvatarFixture.small())
        var resealed = bytes
        AvatarFixture.reseal(&resealed)
        #expect(resealed == bytes)
        #expect(AvatarFixture.replacingSection(bytes, "mesh", with: AvatarFixture.small().mesh.encodedSection()) == bytes)
    }
}
