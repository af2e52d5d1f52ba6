import CPng

/// Writes B,G,R frames as PNG files with libpng's simplified interface (no longjmp error handling needed).
enum PNGWriter {
    /// `PNG_FORMAT_BGR`: PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_BGR.
    private static let formatBGR: UInt32 = 0x02 | 0x10
    /// `PNG_IMAGE_FLAG_FAST`: quicker compression, slightly larger files.
    private static let flagFast: UInt32 = 0x02

    /// Writes `width * height * 3` bytes of B,G,R to `path`.
    static func write(path: String, bgr: UnsafeRawBufferPointer, width: Int, height: Int) throws(CLIError) {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(width)
        image.height = UInt32(height)
        image.format = formatBGR
        image.flags = flagFast
        let ok = png_image_write_to_file(&image, path, 0, bgr.baseAddress, Int32(width * 3), nil)
        if ok == 0 {
            let reason = withUnsafeBytes(of: image.message) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            png_image_free(&image)
            throw CLIError("cannot write '\(path)': \(reason)")
        }
    }
}
