import Essence2Runtime

extension AvatarManifest {
    /// What each standard section holds, written into the manifest so a file explains itself.
    static let sectionDescriptions: [(String, String)] = [
        (AvatarFileFormat.Section.image, "portrait pixels: B,G,R bytes, rows top to bottom, no padding, width*height*3 bytes"),
        (AvatarFileFormat.Section.landmarks, "named face points, 20-point outer and inner lip outlines, face and mouth boxes (binary, little-endian)"),
        (AvatarFileFormat.Section.mesh, "MediaPipe Face Mesh: 478 points (x, y, z in pixels) and triangles (binary, little-endian)"),
        (AvatarFileFormat.Section.headMask, "soft mask of the region that moves with the head, one byte per pixel, 0...255"),
    ]
    /// A character's sections.
    static let characterSectionDescriptions: [(String, String)] = [
        (AvatarFileFormat.Section.image, "the frame: the character over its backdrop, B,G,R bytes, rows top to bottom, width*height*3 bytes"),
        (AvatarFileFormat.Section.rig, "the character's rig (JSON): eyes, mouth, brows, head outline in frame pixels, mouth style, source placement"),
        (AvatarFileFormat.Section.headMask, "soft mask of the region that moves with the head, one byte per pixel, 0...255"),
    ]

    func encoded() -> [UInt8] {
        let box = [headBox.x, headBox.y, headBox.width, headBox.height].map { JSONValue.number(String($0)) }
        let hexSeed = String(seed, radix: 16)
        let seedText = "0x" + String(repeating: "0", count: 16 - hexSeed.count) + hexSeed
        let members: [JSONMember] = [
            JSONMember("format", .string(Self.formatName)),
            JSONMember("kind", .string(kind)),
            JSONMember("version", .number(String(AvatarFileFormat.version))),
            JSONMember("name", .string(name)),
            JSONMember("width", .number(String(width))),
            JSONMember("height", .number(String(height))),
            JSONMember("seed", .string(seedText)),
            JSONMember("headBox", .array(box)),
            JSONMember("sections", .object((kind == Self.characterKind ? Self.characterSectionDescriptions : Self.sectionDescriptions).map { JSONMember($0.0, .string($0.1)) })),
            JSONMember("info", .object(info.sorted { $0.key < $1.key }.map { JSONMember($0.key, .string($0.value)) })),
        ]
        return JSONWriter.write(.object(members))
    }
}
