extension AvatarFile {
    /// A human-readable account of the file at `path` for `essence2 avatar inspect`: the header, the section
    /// table with sizes and whether each sha256 matches, the manifest, a summary of the content, and a last
    /// line `status: valid` or `status: INVALID (<kind>): <reason>`. Never throws: problems are described.
    package static func describe(path: String) -> String {
        let bytes: [UInt8]
        do {
            bytes = try BinaryFile.read(path: path, maxSize: AvatarFileFormat.maxFileSize)
        } catch {
            return "file: \(path)\nstatus: INVALID (\(error.kind.rawValue)): \(error.reason)\n"
        }
        return "file: \(path)\n" + describe(bytes: bytes)
    }

    /// `describe(path:)` for a file held in memory (without the `file:` line).
    package static func describe(bytes: [UInt8]) -> String {
        var lines: [String] = []
        lines.append("size: \(bytes.count) bytes")
        let verdict: String
        do {
            let avatar = try read(bytes: bytes)
            describeLayout(bytes, into: &lines)
            describeContent(avatar, into: &lines)
            verdict = "status: valid"
        } catch {
            describeLayout(bytes, into: &lines)
            verdict = "status: INVALID (\(error.kind.rawValue)): \(error.reason)"
        }
        lines.append(verdict)
        return lines.joined(separator: "\n") + "\n"
    }

    /// Whatever of the header, table and manifest can be read, even from a damaged file.
    private static func describeLayout(_ bytes: [UInt8], into lines: inout [String]) {
        typealias F = AvatarFileFormat
        guard bytes.count >= F.headerSize, bytes.starts(with: F.magic) else { return }
        var reader = ByteReader(bytes, range: F.magic.count..<F.headerSize)
        let version = reader.u32() ?? 0
        let sectionCount = Int(reader.u32() ?? 0)
        let declaredSize = reader.u64() ?? 0
        let width = reader.u32() ?? 0
        let height = reader.u32() ?? 0
        let tableDigest = Array(reader.take(SHA256.digestSize) ?? [])
        lines.append("header: .imx version \(version), \(sectionCount) sections, declared size \(declaredSize) bytes, portrait \(width)x\(height)")
        guard sectionCount >= 1, sectionCount <= F.maxSections else { return }
        let tableEnd = F.headerSize + sectionCount * F.sectionEntrySize
        guard tableEnd <= bytes.count else { return }
        let tableOK = AvatarFileLayout.digestOfHeaderAndTable(bytes, tableEnd: tableEnd) == tableDigest
        lines.append("header+table sha256: \(SHA256.hex(tableDigest)) \(tableOK ? "ok" : "FAIL")")
        lines.append("sections:")
        lines.append("  name         encoding     offset     stored    decoded  sha256")
        var manifestText: String?
        for index in 0..<sectionCount {
            let start = F.headerSize + index * F.sectionEntrySize
            var entry = ByteReader(bytes, range: start..<(start + F.sectionEntrySize))
            let nameBytes = Array(entry.take(F.maxSectionNameLength) ?? [])
            let name = String(decoding: nameBytes.prefix { $0 != 0 }.map { $0 >= 0x20 && $0 < 0x7F ? $0 : UInt8(ascii: "?") },
                              as: UTF8.self)
            let encodingCode = entry.u32() ?? 0
            _ = entry.u32()
            let offset = entry.u64() ?? 0
            let stored = entry.u64() ?? 0
            let decoded = entry.u64() ?? 0
            let digest = Array(entry.take(SHA256.digestSize) ?? [])
            let encoding = F.Encoding(rawValue: encodingCode)?.name ?? "unknown(\(encodingCode))"
            var check = "past end of file"
            if offset <= UInt64(bytes.count), stored <= UInt64(bytes.count) - offset {
                let range = Int(offset)..<Int(offset + stored)
                let ok = SHA256.hash(bytes, range: range) == digest
                check = "\(SHA256.hex(digest)) \(ok ? "ok" : "FAIL")"
                if ok, name == F.Section.manifest, encodingCode == F.Encoding.raw.rawValue {
                    manifestText = String(validating: bytes[range], as: UTF8.self)
                }
            }
            lines.append("  " + pad(name, 12) + " " + pad(encoding, 8) + " " + padLeft(String(offset), 10) + " "
                + padLeft(String(stored), 10) + " " + padLeft(String(decoded), 10) + "  " + check)
        }
        if let manifestText {
            lines.append("manifest:")
            for line in manifestText.split(separator: "\n", omittingEmptySubsequences: true) {
                lines.append("  " + printable(String(line)))
            }
        }
    }

    private static func describeContent(_ avatar: Avatar, into lines: inout [String]) {
        func box(_ r: PixelRect) -> String { "x \(r.x) y \(r.y) \(r.width)x\(r.height)" }
        let hexSeed = String(avatar.seed, radix: 16)
        lines.append("content:")
        lines.append("  name: \(printable(avatar.name))")
        lines.append("  kind: \(avatar.kindName), \(avatar.cadence.framesPerSecond) frames a second")
        if let rig = avatar.character {
            func pt(_ p: SIMD2<Float>) -> String { "(\(Int(p.x.rounded())), \(Int(p.y.rounded())))" }
            lines.append("  frame: \(avatar.width)x\(avatar.height) B,G,R (\(avatar.pixels.count) bytes), from a \(rig.sourceWidth)x\(rig.sourceHeight) picture")
            lines.append("  seed: 0x\(hexSeed)")
            lines.append("  rig: " + rig.namedPoints.map { "\($0.name) \(pt($0.point))" }.joined(separator: ", "))
            lines.append("  mouth: drawn \(rig.mouth.rawValue)" + (rig.mouth == .open ? ", opening \(Int(rig.mouthOpening.rounded())) px" : "")
                + "; eye radii \(Int(rig.leftEyeRadius.rounded())) and \(Int(rig.rightEyeRadius.rounded())) px; outline \(rig.outline.count) points; head box: \(box(avatar.headBox))")
            return
        }
        lines.append("  portrait: \(avatar.width)x\(avatar.height) B,G,R (\(avatar.pixels.count) bytes)")
        lines.append("  seed: 0x\(hexSeed)")
        lines.append("  landmarks: \(avatar.landmarks.points.count) named points, lips \(avatar.landmarks.lipsOuter.count) outer + \(avatar.landmarks.lipsInner.count) inner")
        lines.append("  face box: \(box(avatar.landmarks.faceBox)); mouth box: \(box(avatar.landmarks.mouthBox)); head box: \(box(avatar.headBox))")
        lines.append("  mesh: \(avatar.mesh.points.count) points, \(avatar.mesh.triangles.count) triangles")
        if avatar.headMask.isEmpty {
            lines.append("  head mask: none (the renderer derives one)")
        } else {
            var moving = 0, full = 0
            for value in avatar.headMask {
                if value > 0 { moving += 1 }
                if value == 255 { full += 1 }
            }
            let total = Double(avatar.headMask.count)
            lines.append("  head mask: \(percent(Double(moving) / total)) of pixels move, \(percent(Double(full) / total)) fully")
        }
    }

    /// `text` safe to print on a terminal: control characters (C0, DEL, C1: a crafted name could carry terminal
    /// escapes) shown as `\u{1B}` instead of being sent as they are.
    package static func printable(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func percent(_ fraction: Double) -> String {
        let tenths = Int((fraction * 1000).rounded())
        return "\(tenths / 10).\(tenths % 10)%"
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    private static func padLeft(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }
}
