/// Why an avatar file could not be read, written or built. `description` is one human sentence,
/// for example "checksum mismatch in section 'image'".
package struct AvatarFileError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The class of failure.
    package enum Kind: String, Sendable, CaseIterable {
        /// The file does not exist.
        case missing
        /// The file exists but cannot be read (permissions, a directory, an I/O error).
        case unreadable
        /// The file ends before the data it declares (including an empty file).
        case truncated
        /// The file does not start with the `.imx` magic bytes.
        case notAvatar
        /// The file is an `.imx` file of a version this library does not read.
        case version
        /// The file's structure or content is invalid (bad field, bad section, bad manifest, bad geometry).
        case corrupt
        /// A SHA-256 recorded in the file does not match the bytes it covers.
        case checksum
        /// A size in the file (or the file itself) exceeds the limits.
        case tooLarge
        /// Input given to the builder (portrait, landmark or mesh JSON) is invalid.
        case invalidInput
        /// The file could not be written.
        case writeFailed
    }

    /// The class of failure.
    package var kind: Kind
    /// What exactly went wrong, in words.
    package var reason: String
    /// A `.version` failure because the file is older than this library reads (not newer).
    package var isOutdated: Bool

    package init(_ kind: Kind, _ reason: String, outdated: Bool = false) {
        self.kind = kind
        self.reason = reason
        isOutdated = outdated
    }

    package var description: String { reason }
}
