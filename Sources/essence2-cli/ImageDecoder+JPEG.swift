import CJpeg
import Glibc

extension ImageDecoder {
    /// Decodes a baseline or progressive JPEG with libjpeg(-turbo) straight to B,G,R.
    ///
    /// libjpeg reports fatal errors through `error_exit`, which must not return; recovering would need
    /// `setjmp`, which Swift cannot call. So a fatal libjpeg error prints its message and ends the process
    /// with status 1. The header is parsed first, and the size checked before any pixel buffer is allocated;
    /// corrupt-data warnings (which libjpeg survives) are turned into an error after decoding.
    static func decodeJPEG(_ bytes: [UInt8], name: String) throws(ImageDecodeError) -> ImageBuffer {
        let info = UnsafeMutablePointer<jpeg_decompress_struct>.allocate(capacity: 1)
        let errors = UnsafeMutablePointer<jpeg_error_mgr>.allocate(capacity: 1)
        info.initialize(to: jpeg_decompress_struct())
        errors.initialize(to: jpeg_error_mgr())
        defer {
            jpeg_destroy_decompress(info)
            info.deallocate()
            errors.deallocate()
        }
        info.pointee.err = jpeg_std_error(errors)
        errors.pointee.error_exit = { common in
            var text = [CChar](repeating: 0, count: Int(JMSG_LENGTH_MAX))
            if let common, let format = common.pointee.err.pointee.format_message {
                text.withUnsafeMutableBufferPointer { format(common, $0.baseAddress) }
            }
            let message = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let line = Array("essence2: cannot decode JPEG: \(message)\n".utf8)
            _ = line.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
            exit(1)
        }
        // The first warning's text goes to `firstWarning` (through client_data) instead of stderr.
        let firstWarning = UnsafeMutablePointer<CChar>.allocate(capacity: Int(JMSG_LENGTH_MAX))
        firstWarning.initialize(repeating: 0, count: Int(JMSG_LENGTH_MAX))
        defer { firstWarning.deallocate() }
        info.pointee.client_data = UnsafeMutableRawPointer(firstWarning)
        errors.pointee.emit_message = { common, level in
            // Count warnings (corrupt data libjpeg works around) without printing them; reported below.
            guard level < 0, let common else { return }
            if common.pointee.err.pointee.num_warnings == 0, let buffer = common.pointee.client_data,
               let format = common.pointee.err.pointee.format_message {
                format(common, buffer.assumingMemoryBound(to: CChar.self))
            }
            common.pointee.err.pointee.num_warnings += 1
        }
        jpeg_CreateDecompress(info, JPEG_LIB_VERSION, MemoryLayout<jpeg_decompress_struct>.size)
        let pixels: [UInt8]
        let width: Int, height: Int
        do {
            // The source buffer must stay valid until decoding ends, so everything happens inside this closure.
            let result: Result<(Int, Int, [UInt8]), ImageDecodeError> = bytes.withUnsafeBufferPointer { source in
                jpeg_mem_src(info, source.baseAddress, UInt(source.count))
                _ = jpeg_read_header(info, 1)
                let w = Int(info.pointee.image_width), h = Int(info.pointee.image_height)
                if let problem = sizeProblem(width: w, height: h, name: name) { return .failure(problem) }
                info.pointee.out_color_space = JCS_EXT_BGR
                _ = jpeg_start_decompress(info)
                guard Int(info.pointee.output_width) == w, Int(info.pointee.output_height) == h,
                      info.pointee.output_components == 3 else {
                    jpeg_abort_decompress(info)
                    return .failure(ImageDecodeError("\(name): unexpected JPEG output format"))
                }
                var out = [UInt8](repeating: 0, count: w * h * 3)
                out.withUnsafeMutableBufferPointer { buffer in
                    while info.pointee.output_scanline < info.pointee.output_height, let base = buffer.baseAddress {
                        var row: UnsafeMutablePointer<UInt8>? = base + Int(info.pointee.output_scanline) * w * 3
                        if jpeg_read_scanlines(info, &row, 1) == 0 { break }
                    }
                }
                guard info.pointee.output_scanline == info.pointee.output_height else {
                    jpeg_abort_decompress(info)
                    return .failure(ImageDecodeError("\(name): the JPEG data ends early"))
                }
                _ = jpeg_finish_decompress(info)
                return .success((w, h, out))
            }
            (width, height, pixels) = try result.get()
        }
        guard errors.pointee.num_warnings == 0 else {
            let message = String(cString: firstWarning)
            throw ImageDecodeError("\(name): the JPEG data is corrupt (\(message))")
        }
        return ImageBuffer(width: width, height: height, bgr: pixels)
    }
}
