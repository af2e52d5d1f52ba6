import CPng
import Essence2Runtime
import Glibc

/// Writes B,G,R frames as PNG files with libpng's simplified interface (no longjmp error handling needed).
enum PNGWriter {
    /// `PNG_FORMAT_BGR`: PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_BGR.
    private static let formatBGR: UInt32 = 0x02 | 0x10
    /// `PNG_IMAGE_FLAG_FAST`: quicker compression, slightly larger files.
    private static let flagFast: UInt32 = 0x02

    /// Writes `width * height * 3` bytes of B,G,R to `path`, whole or not at all (the runtime's atomic writer).
    static func write(path: String, bgr: UnsafeRawBufferPointer, width: Int, height: Int) throws(CLIError) {
        let bytes = try encode(bgr: bgr, width: width, height: height, name: path)
        guard BinaryFile.replaceAtomically(bytes, at: path, mode: 0o644) else {
            throw CLIError("cannot write '\(path)': \(String(cString: strerror(errno)))")
        }
    }

    /// The PNG file of `width * height * 3` bytes of B,G,R; `name` is used in messages.
    static func encode(bgr: UnsafeRawBufferPointer, width: Int, height: Int, name: String) throws(CLIError) -> [UInt8] {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(width)
        image.height = UInt32(height)
        image.format = formatBGR
        image.flags = flagFast
        func failure() -> CLIError {
            let reason = withUnsafeBytes(of: image.message) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            png_image_free(&image)
            return CLIError("cannot write '\(name)': \(reason)")
        }
        // The first call measures (the compressed size is bounded, not known), the second writes.
        var size = 0
        guard png_image_write_to_memory(&image, nil, &size, 0, bgr.baseAddress, Int32(width * 3), nil) != 0 else {
            throw failure()
        }
        var bytes = [UInt8](repeating: 0, count: size)
        let ok = bytes.withUnsafeMutableBytes { raw in
            png_image_write_to_memory(&image, raw.baseAddress, &size, 0, bgr.baseAddress, Int32(width * 3), nil)
        }
        guard ok != 0 else { throw failure() }
        return Array(bytes.prefix(size))
    }
}
