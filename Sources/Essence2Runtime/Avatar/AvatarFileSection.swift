/// One entry of an `.imx` section table.
struct AvatarFileSection: Sendable, Equatable {
    /// Section name, 1...16 ASCII characters.
    package var name: String
    var encoding: AvatarFileFormat.Encoding
    /// Where the stored bytes start in the file.
    var offset: Int
    /// Stored (encoded) length in bytes.
    var storedLength: Int
    /// Decoded length in bytes.
    var length: Int
    /// SHA-256 of the stored bytes.
    var digest: [UInt8]

    var range: Range<Int> { offset..<(offset + storedLength) }
}
