/// Constants of the `.imx` format, version 1 (specified in docs/imx-format.md). All integers little-endian.
public enum AvatarFileFormat {
    /// The first 8 bytes of every `.imx` file.
    public static let magic: [UInt8] = [0x89, 0x49, 0x4D, 0x58, 0x0D, 0x0A, 0x1A, 0x0A]  // \x89 I M X \r \n \x1a \n
    /// The only version this library reads and writes.
    public static let version: UInt32 = 1
    /// Header size in bytes: magic, version, section count, file size, width, height, table sha256.
    public static let headerSize = 64
    /// Header bytes covered (with the section table) by the table sha256 at offset 32.
    public static let headerDigestedBytes = 32
    /// Size of one section table entry.
    public static let sectionEntrySize = 80
    /// Longest section name, in bytes (ASCII letters, digits, '_', '-', '.').
    public static let maxSectionNameLength = 16

    /// Largest file accepted: 256 MiB.
    public static let maxFileSize = 256 << 20
    /// Largest width or height.
    public static let maxSide = 16384
    /// Most pixels in a portrait: 8192 * 8192.
    public static let maxPixels = 8192 * 8192
    /// Most sections in one file.
    public static let maxSections = 32
    /// Largest manifest section.
    public static let maxManifestSize = 64 << 10
    /// Largest landmarks section.
    public static let maxLandmarksSize = 64 << 10
    /// Most named landmark points; most points in one lip outline.
    public static let maxNamedPoints = 64
    public static let maxLipPoints = 256
    /// Most mesh triangles.
    public static let maxTriangles = 8192
    /// Longest avatar name, in UTF-8 bytes.
    public static let maxNameLength = 256

    /// Section names.
    public enum Section {
        public static let manifest = "manifest"
        public static let image = "image"
        public static let landmarks = "landmarks"
        public static let mesh = "mesh"
        public static let headMask = "headMask"
    }

    /// How a section's bytes are stored.
    public enum Encoding: UInt32, Sendable {
        /// The bytes as they are.
        case raw = 0
        /// Run-length coded (see docs/imx-format.md).
        case rle8 = 1

        var name: String {
            switch self {
            case .raw: "raw"
            case .rle8: "rle8"
            }
        }
    }
}
