import Essence2Authoring
import Essence2Runtime
import FuzzSupport

/// The structure-aware edits the harness makes to a valid avatar, each read from the fuzz input: manifest and
/// rig values set to boundary values or to values of another type, header fields, table entries and section
/// sizes changed, sections dropped, duplicated, renamed and reordered, bytes of the binary sections overwritten
/// with boundary integers and floats. Checksums are recomputed afterwards (`ImxContainer.encoded`), except when
/// an edit asks for a wrong one.
enum ImxMutation: CaseIterable {
    case manifestInteger, manifestString, manifestMember, jsonValue, jsonNumber, jsonBytes, headerField,
         resizeSection, binaryField, tableEntry, sectionList, encoding, checksum

    /// Applies `count` edits read from `input` to `container`.
    static func apply(_ count: Int, from input: inout FuzzInput, to container: inout ImxContainer) {
        for _ in 0..<count where !input.isAtEnd {
            input.pick(allCases).apply(from: &input, to: &container)
        }
    }

    func apply(from input: inout FuzzInput, to container: inout ImxContainer) {
        typealias S = AvatarFileFormat.Section
        switch self {
        case .manifestInteger:
            let key = input.pick(["width", "height", "version", "headBox"])
            let number = JSONValue.number(input.pick(BoundaryValue.jsonNumbers))
            Self.editJSON(S.manifest, in: &container) { json in
                guard key == "headBox" else { return JSONEdit.setting(key, to: number, in: json) }
                guard case .array(var box)? = json["headBox"], !box.isEmpty else { return json }
                box[input.below(box.count)] = number
                return JSONEdit.setting(key, to: .array(box), in: json)
            }
        case .manifestString:
            let key = input.pick(["format", "kind", "name", "seed", "headBox", "info", "width", "sections"])
            let value = Self.parse(input.pick(BoundaryValue.jsonValues))
            Self.editJSON(S.manifest, in: &container) { JSONEdit.setting(key, to: value, in: $0) }
        case .manifestMember:
            let key = input.pick(["format", "kind", "version", "name", "width", "height", "seed", "headBox", "info"])
            let duplicate = input.byte() & 1 == 1
            Self.editJSON(S.manifest, in: &container) { json in
                guard duplicate, case .object(var members) = json, let member = members.first(where: { $0.key == key }) else {
                    return JSONEdit.setting(key, to: nil, in: json)
                }
                members.append(member)  // a duplicate key: the parser must refuse it
                return .object(members)
            }
        case .jsonValue:
            let name = input.byte() & 1 == 0 ? S.manifest : S.rig
            let index = Int(input.u16()), value = Self.parse(input.pick(BoundaryValue.jsonValues + BoundaryValue.jsonNumbers))
            Self.editJSON(name, in: &container) { JSONEdit.replacing(index % JSONEdit.count($0), in: $0, with: value) }
        case .jsonNumber:
            let name = input.byte() & 3 == 0 ? S.manifest : S.rig
            let index = Int(input.u16()), how = input.below(4), boundary = input.pick(BoundaryValue.jsonNumbers)
            let width = container.width, height = container.height
            Self.editJSON(name, in: &container) { json in
                let numbers = JSONEdit.numberCount(json)
                guard numbers > 0 else { return json }
                return JSONEdit.replacingNumber(index % numbers, in: json) { text in
                    switch how {
                    case 0: return boundary
                    case 1: return "-" + (text.hasPrefix("-") ? String(text.dropFirst()) : text)
                    case 2: return String(width)
                    default: return text + "0" + String(height)  // ten and more times as large
                    }
                }
            }
        case .jsonBytes:
            guard let at = Self.sectionIndex(input.byte() & 1 == 0 ? S.manifest : S.rig, in: container) else { return }
            var bytes = container.sections[at].contents
            guard !bytes.isEmpty else { return }
            let position = input.below(bytes.count)
            switch input.below(4) {
            case 0: bytes[position] = input.pick(Array("{}[]\",:0-.eE\\u ".utf8) + [0, 0x80, 0xC0, 0xFF])
            case 1: bytes.removeSubrange(position..<min(bytes.count, position + 1 + input.below(16)))
            case 2: bytes.insert(contentsOf: input.run(upTo: 16), at: position)
            default: bytes.removeSubrange(position...)
            }
            container.sections[at].contents = bytes
        case .headerField:
            switch input.below(6) {
            case 0: container.width = input.pick(BoundaryValue.u32)
            case 1: container.height = input.pick(BoundaryValue.u32)
            case 2: container.version = input.pick(BoundaryValue.u32)
            case 3: container.sectionCount = input.pick(BoundaryValue.u32)
            case 4: container.fileSize = input.pick(BoundaryValue.u64)
            default: container.magic[input.below(container.magic.count)] ^= 1 << UInt8(input.below(8))
            }
        case .resizeSection:
            guard !container.sections.isEmpty else { return }
            let at = input.below(container.sections.count)
            var bytes = container.sections[at].contents
            let amount = input.pick([1, 2, 3, 4, 6, 8, 12, 64, 255, 4096, bytes.count / 2, bytes.count])
            switch input.below(4) {
            case 0: bytes.removeLast(min(amount, bytes.count))
            case 1: bytes += [UInt8](repeating: input.byte(), count: amount)
            case 2: bytes.removeFirst(min(amount, bytes.count))
            default: bytes = []
            }
            container.sections[at].contents = bytes
        case .binaryField:
            guard let at = Self.sectionIndex(input.pick([S.landmarks, S.mesh, S.landmarks, S.mesh, S.headMask, S.image]), in: container)
            else { return }
            var bytes = container.sections[at].contents
            guard bytes.count >= 4 else { return }
            // A field boundary near the start (counts), near the end (boxes, triangles) or anywhere.
            let words = bytes.count / 4
            let word: Int
            switch input.below(3) {
            case 0: word = input.below(min(words, 64))
            case 1: word = words - 1 - input.below(min(words, 64))
            default: word = input.below(words)
            }
            let shift = input.below(4)  // unaligned fields too (named points are variable-length)
            let value: UInt32 = switch input.below(3) {
            case 0: input.pick(BoundaryValue.u32)
            case 1: input.pick(BoundaryValue.f32)
            default: UInt32(bitPattern: input.pick([Int32.min, -1, Int32.max, Int32(truncatingIfNeeded: container.width), Int32(truncatingIfNeeded: container.height)]))
            }
            let position = min(word * 4 + shift, bytes.count - 4)
            for i in 0..<4 { bytes[position + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
            container.sections[at].contents = bytes
        case .tableEntry:
            guard !container.sections.isEmpty else { return }
            let at = input.below(container.sections.count)
            let delta = input.pick([Int64.min, -4096, -65, -64, -2, -1, 1, 2, 64, 65, 4096, Int64.max])
            switch input.below(6) {
            case 0: container.sections[at].offsetDelta = delta
            case 1: container.sections[at].storedLengthDelta = delta
            case 2: container.sections[at].lengthDelta = delta
            case 3: container.sections[at].reserved = input.pick(BoundaryValue.u32)
            case 4: container.sections[at].name = ImxContainer.Section.nameField(input.pick(
                [S.manifest, S.image, S.landmarks, S.mesh, S.headMask, S.rig, "", "x", "0123456789abcdefg", "bad name", "é"]))
            default: container.sections[at].name[input.below(16)] = input.pick([0, 0x20, 0x2F, 0x41, 0x7F, 0xFF])
            }
        case .sectionList:
            guard !container.sections.isEmpty else { return }
            let at = input.below(container.sections.count)
            switch input.below(4) {
            case 0: container.sections.remove(at: at)
            case 1: container.sections.insert(container.sections[at], at: input.below(container.sections.count + 1))
            case 2: container.sections.swapAt(at, input.below(container.sections.count))
            default:
                var extra = ImxContainer.Section(name: input.pick(["extra", "later.v2", "a"]), encoding: input.pick([0, 1]),
                                                 contents: input.run(upTo: 64))
                if input.byte() & 1 == 1 { extra.contents = [UInt8](repeating: 0, count: Int(input.u16())) }
                container.sections.insert(extra, at: input.below(container.sections.count + 1))
            }
        case .encoding:
            guard !container.sections.isEmpty else { return }
            container.sections[input.below(container.sections.count)].encoding = input.pick([0, 1, 1, 2, 0x8000_0000, 0xFFFF_FFFF])
        case .checksum:
            if input.byte() & 1 == 0 {
                container.tableSealed = false
            } else if !container.sections.isEmpty {
                container.sections[input.below(container.sections.count)].sealed = false
            }
        }
    }

    private static func sectionIndex(_ name: String, in container: ImxContainer) -> Int? {
        container.section(named: name)
    }

    /// Parses one of the boundary literals (all valid JSON); `null` for any that is not.
    private static func parse(_ text: String) -> JSONValue {
        (try? JSONParser.parse(Array(text.utf8))) ?? .null
    }

    /// Rewrites the JSON section `name` through `edit` (nothing when it no longer parses: a byte edit came first).
    private static func editJSON(_ name: String, in container: inout ImxContainer, _ edit: (JSONValue) -> JSONValue) {
        guard let at = container.section(named: name), let json = try? JSONParser.parse(container.sections[at].contents) else {
            return
        }
        container.sections[at].contents = JSONWriter.write(edit(json))
    }
}
