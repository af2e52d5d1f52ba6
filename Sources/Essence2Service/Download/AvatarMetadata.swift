import Essence2Runtime
/// The service's description of an avatar (`GET /v1/avatars/{code}`, docs/service-protocol.md).
package struct AvatarMetadata: Sendable, Equatable {
    /// The file's SHA-256, 64 lowercase hex digits.
    package let sha256: String
    /// The file's size in bytes.
    package let size: Int
    /// The .imx format version of the file.
    package let formatVersion: Int

    package init(sha256: String, size: Int, formatVersion: Int) {
        self.sha256 = sha256
        self.size = size
        self.formatVersion = formatVersion
    }

    /// The metadata in a 200 answer's body; nil when it is not well formed.
    package static func parse(_ body: [UInt8]) -> AvatarMetadata? {
        guard let json = try? JSONParser.parse(body),
              let sha = json["sha256"]?.stringValue?.lowercased(), isSHA256(sha),
              let size = json["size"]?.intValue, size >= 0 else { return nil }
        return AvatarMetadata(sha256: sha, size: size, formatVersion: json["format_version"]?.intValue ?? 1)
    }

    /// Whether `text` is 64 lowercase hex digits.
    package static func isSHA256(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count == 64 && bytes.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
