/// Constants of the `.imx` format, version 1 (specified in docs/imx-format.md). All integers little-endian.
package enum AvatarFileFormat {
    /// The first 8 bytes of every `.imx` file.
    package static let magic: [UInt8] = [0x89, 0x49, 0x4D, 0x58, 0x0D, 0x0A, 0x1A, 0x0A]  // \x89 I M X \r \n \x1a \n
    /// The only version this library reads and writes.
    package static let version: UInt32 = 1
    /// Header size in bytes: magic, version, section count, file size, width, height, table sha256.
    package static let headerSize = 64
    /// Header bytes covered (with the section table) by the table sha256 at offset 32.
    package static let headerDigestedBytes = 32
    /// Size of one section table entry.
    package static let sectionEntrySize = 80
    /// Longest section name, in bytes (ASCII letters, digits, '_', '-', '.').
    package static let maxSectionNameLength = 16

    /// Largest file accepted: 256 MiB.
    package static let maxFileSize = 256 << 20
    /// Largest width or height.
    package static let maxSide = 16384
    /// Most pixels in a portrait: 8192 * 8192.
    package static let maxPixels = 8192 * 8192
    /// Most pixels in a character's frame (Expression 2 draws 416x720; 3072x3072 leaves room for 2048x2880):
    /// every per-frame and per-load cost of a character is bounded by its frame, and this bounds the frame.
    package static let maxCharacterPixels = 3072 * 3072
    /// Most sections in one file.
    package static let maxSections = 32
    /// Largest manifest section.
    package static let maxManifestSize = 64 << 10
    /// Largest landmarks section.
    package static let maxLandmarksSize = 64 << 10
    /// Most named landmark points; most points in one lip outline.
    package static let maxNamedPoints = 64
    package static let maxLipPoints = 256
    /// Most mesh triangles.
    package static let maxTriangles = 8192
    /// Longest avatar name, in UTF-8 bytes.
    package static let maxNameLength = 256

    /// Section names.
    package enum Section {
        package static let manifest = "manifest"
        package static let image = "image"
        package static let landmarks = "landmarks"
        package static let mesh = "mesh"
        package static let headMask = "headMask"
        /// A character avatar's rig (JSON), in place of `landmarks` and `mesh`.
        package static let rig = "rig"
    }

    /// How a section's bytes are stored.
    package enum Encoding: UInt32, Sendable {
        /// The bytes as they are.
        case raw = 0
        /// Run-length coded (see docs/imx-format.md).
        case rle8 = 1

        package var name: String {
            switch self {
            case .raw: "raw"
            case .rle8: "rle8"
            }
        }
    }
}
