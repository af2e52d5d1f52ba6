/// The `manifest` section: a UTF-8 JSON object describing the avatar (keys in docs/imx-format.md).
package struct AvatarManifest: Sendable, Equatable {
    package static let formatName = "essence2-avatar"

    package var name: String
    package var width: Int
    package var height: Int
    package var seed: UInt64
    package var headBox: PixelRect
    /// Free-form provenance strings (source, licence, ...), written sorted by key.
    package var info: [String: String]
    /// "photoreal" (Essence 2, the default when the key is absent) or "character" (Expression 2).
    package var kind: String = AvatarManifest.photorealKind

    package static let photorealKind = "photoreal"
    package static let characterKind = "character"

    package init(name: String, width: Int, height: Int, seed: UInt64, headBox: PixelRect, info: [String: String]) {
        self.name = name
        self.width = width
        self.height = height
        self.seed = seed
        self.headBox = headBox
        self.info = info
    }

    /// Parses and checks a manifest: required keys `format`, `version`, `name`, `width`, `height`, `seed`,
    /// `headBox`; optional `info` (an object of strings); other keys are ignored.
    package static func decode(_ bytes: [UInt8]) throws(AvatarFileError) -> AvatarManifest {
        func bad(_ what: String) -> AvatarFileError { AvatarFileError(.corrupt, "manifest: \(what)") }
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            throw bad("invalid JSON (\(error))")
        }
        guard json.objectValue != nil else { throw bad("not a JSON object") }
        guard json["format"]?.stringValue == formatName else { throw bad("\"format\" is not \"\(formatName)\"") }
        guard let version = json["version"]?.intValue else { throw bad("\"version\" is missing") }
        guard version == Int(AvatarFileFormat.version) else {
            throw AvatarFileError(.version, "manifest declares version \(version) (this library reads version \(AvatarFileFormat.version))")
        }
        guard let name = json["name"]?.stringValue, !name.isEmpty, name.utf8.count <= AvatarFileFormat.maxNameLength else {
            throw bad("\"name\" is missing, empty or too long")
        }
        guard let width = json["width"]?.intValue, let height = json["height"]?.intValue else {
            throw bad("\"width\" or \"height\" is missing or not an integer")
        }
        guard let seedText = json["seed"]?.stringValue, let seed = parseSeed(seedText) else {
            throw bad("\"seed\" is missing or not a hexadecimal string like \"0x0000000000005eed\"")
        }
        guard let box = json["headBox"]?.arrayValue, box.count == 4 else { throw bad("\"headBox\" is not [x, y, width, height]") }
        let values = box.compactMap(\.intValue)
        guard values.count == 4 else { throw bad("\"headBox\" holds a non-integer") }
        var info: [String: String] = [:]
        if let members = json["info"] {
            guard let object = members.objectValue else { throw bad("\"info\" is not an object") }
            for member in object {
                guard let text = member.value.stringValue else { throw bad("info \"\(member.key)\" is not a string") }
                info[member.key] = text
            }
        }
        var kind = photorealKind
        if let value = json["kind"] {
            guard let text = value.stringValue, text == photorealKind || text == characterKind else {
                throw bad("\"kind\" is not \"\(photorealKind)\" or \"\(characterKind)\"")
            }
            kind = text
        }
        var manifest = AvatarManifest(name: name, width: width, height: height, seed: seed,
                                      headBox: PixelRect(x: values[0], y: values[1], width: values[2], height: values[3]),
                                      info: info)
        manifest.kind = kind
        return manifest
    }

    private static func parseSeed(_ text: String) -> UInt64? {
        guard text.hasPrefix("0x"), text.count >= 3, text.count <= 18, text.dropFirst(2).allSatisfy(\.isHexDigit) else {
            return nil
        }
        return UInt64(text.dropFirst(2), radix: 16)
    }
}
