import CPng

/// B,G,R pixels as a PNG file in memory (libpng's simplified interface), for the rig editor's picture and preview.
enum RigPNG {
    static func encode(bgr: UnsafeRawBufferPointer, width: Int, height: Int) throws(CLIError) -> [UInt8] {
        func image() -> png_image {
            var image = png_image()
            image.version = UInt32(PNG_IMAGE_VERSION)
            image.width = UInt32(width)
            image.height = UInt32(height)
            image.format = 0x02 | 0x10  // PNG_FORMAT_BGR
            image.flags = 0x02  // PNG_IMAGE_FLAG_FAST
            return image
        }
        guard width > 0, height > 0, bgr.count >= width * height * 3, let pixels = bgr.baseAddress else {
            throw CLIError("no pixels to encode")
        }
        // First the size needed, then the file.
        var sizing = image()
        var size = 0
        guard png_image_write_to_memory(&sizing, nil, &size, 0, pixels, Int32(width * 3), nil) != 0, size > 0 else {
            png_image_free(&sizing)
            throw CLIError("cannot encode a PNG of \(width)x\(height)")
        }
        var out = [UInt8](repeating: 0, count: size)
        var writing = image()
        let ok = out.withUnsafeMutableBytes {
            png_image_write_to_memory(&writing, $0.baseAddress, &size, 0, pixels, Int32(width * 3), nil)
        }
        guard ok != 0 else {
            png_image_free(&writing)
            throw CLIError("cannot encode a PNG of \(width)x\(height)")
        }
        return Array(out.prefix(size))
    }

    static func encode(bgr: [UInt8], width: Int, height: Int) throws(CLIError) -> [UInt8] {
        let result = bgr.withUnsafeBytes { raw in Result { () throws(CLIError) in try encode(bgr: raw, width: width, height: height) } }
        return try result.get()
    }
}
