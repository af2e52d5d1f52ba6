import Essence2Runtime
import FoundationEssentials

/// Decodes JPEG and PNG portraits (chosen by their leading bytes, not their names) to B,G,R.
enum ImageDecoder {
    /// Largest image file read.
    static let maxFileSize = 256 << 20

    /// Most pixels in a character's picture (`avatar build --character`, `avatar rig`): 4096 x 4096. Larger ones
    /// are refused from their header, before anything is decoded (a 369 KB 8192x8192 PNG took 610 MB to build).
    static let maxCharacterPixels = 4096 * 4096

    /// Decodes the image at `path`, refusing one of more than `maxPixels` pixels from its header.
    static func decode(path: String, maxPixels: Int = AvatarFileFormat.maxPixels) throws(ImageDecodeError) -> ImageBuffer {
        guard FileCheck.isFile(path), let size = FileCheck.size(path) else {
            throw ImageDecodeError("cannot read \(path): no such file, or not a regular file")
        }
        if size > maxFileSize {
            throw ImageDecodeError("\(path): \(size) bytes, more than the limit of \(maxFileSize)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ImageDecodeError("cannot read \(path)")
        }
        let bytes = [UInt8](data)
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return try decodeJPEG(bytes, name: path, maxPixels: maxPixels) }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return try decodePNG(bytes, name: path, maxPixels: maxPixels) }
        throw ImageDecodeError("\(path): not a JPEG or PNG image")
    }

    /// Checks a decoded image size against the avatar format's limits before anything is allocated for it.
    static func sizeProblem(width: Int, height: Int, name: String,
                            maxPixels: Int = AvatarFileFormat.maxPixels) -> ImageDecodeError? {
        guard width >= 1, height >= 1, width <= AvatarFileFormat.maxSide, height <= AvatarFileFormat.maxSide,
              width * height <= AvatarFileFormat.maxPixels else {
            return ImageDecodeError("\(name): image size \(width)x\(height) outside the limits (sides up to \(AvatarFileFormat.maxSide), at most \(AvatarFileFormat.maxPixels) pixels)")
        }
        guard width * height <= maxPixels else {
            return ImageDecodeError("\(name): image size \(width)x\(height) is more than \(maxPixels) pixels, the most a character's picture may have; scale it down (it is drawn at most 3072x3072)")
        }
        return nil
    }
}
