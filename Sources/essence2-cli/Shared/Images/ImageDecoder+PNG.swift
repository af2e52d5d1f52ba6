import Essence2Runtime
import CPng

extension ImageDecoder {
    /// Decodes a PNG through libpng's simplified API (which reports errors instead of jumping), converting
    /// any colour type to B,G,R; transparency is composited onto white.
    static func decodePNG(_ bytes: [UInt8], name: String,
                           maxPixels: Int = AvatarFileFormat.maxPixels) throws(ImageDecodeError) -> ImageBuffer {
        let formatBGR: UInt32 = 0x02 | 0x10  // PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_BGR
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        let begun = bytes.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        guard begun != 0 else {
            let message = messageText(&image)
            png_image_free(&image)
            throw ImageDecodeError("\(name): invalid PNG (\(message))")
        }
        let width = Int(image.width), height = Int(image.height)
        if let problem = sizeProblem(width: width, height: height, name: name, maxPixels: maxPixels) {
            png_image_free(&image)
            throw problem
        }
        if image.format & 0x01 != 0 {  // PNG_FORMAT_FLAG_ALPHA: keep the transparency beside the composite
            image.format = formatBGR | 0x01
            var bgra = [UInt8](repeating: 0, count: width * height * 4)
            let read = bgra.withUnsafeMutableBytes {
                png_image_finish_read(&image, nil, $0.baseAddress, Int32(width * 4), nil)
            }
            guard read != 0 else {
                let message = messageText(&image)
                png_image_free(&image)
                throw ImageDecodeError("\(name): cannot decode PNG (\(message))")
            }
            png_image_free(&image)
            var bgr = [UInt8](repeating: 0, count: width * height * 3)
            var alpha = [UInt8](repeating: 0, count: width * height)
            for i in 0..<(width * height) {
                let a = Int(bgra[4 * i + 3])
                alpha[i] = UInt8(a)
                for c in 0..<3 {
                    bgr[3 * i + c] = UInt8((Int(bgra[4 * i + c]) * a + 255 * (255 - a) + 127) / 255)
                }
            }
            let opaque = !alpha.contains { $0 != 255 }
            return ImageBuffer(width: width, height: height, bgr: bgr, alpha: opaque ? nil : alpha)
        }
        image.format = formatBGR
        var pixels = [UInt8](repeating: 255, count: width * height * 3)
        var white = png_color(red: 255, green: 255, blue: 255)
        let finished = pixels.withUnsafeMutableBytes {
            png_image_finish_read(&image, &white, $0.baseAddress, Int32(width * 3), nil)
        }
        guard finished != 0 else {
            let message = messageText(&image)
            png_image_free(&image)
            throw ImageDecodeError("\(name): cannot decode PNG (\(message))")
        }
        png_image_free(&image)
        return ImageBuffer(width: width, height: height, bgr: pixels)
    }

    private static func messageText(_ image: inout png_image) -> String {
        withUnsafeBytes(of: &image.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
