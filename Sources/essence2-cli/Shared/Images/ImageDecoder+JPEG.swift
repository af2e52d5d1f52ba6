import Essence2Runtime
import CJpeg
import Essence2Authoring

extension ImageDecoder {
    /// Decodes a baseline or progressive JPEG with libjpeg(-turbo) straight to B,G,R.
    ///
    /// libjpeg's fatal errors come back through the setjmp wrapper in `jpeg_shim.h` as errors; the size is
    /// read and checked before any pixel buffer is allocated; corrupt data that libjpeg works around is an
    /// error too (a portrait should be clean). The EXIF orientation (`ExifOrientation(jpeg:)`), when there is
    /// one, is applied to the decoded pixels, so a phone's portrait comes out upright; a malformed EXIF block
    /// is ignored.
    static func decodeJPEG(_ bytes: [UInt8], name: String,
                           maxPixels: Int = AvatarFileFormat.maxPixels) throws(ImageDecodeError) -> ImageBuffer {
        var message = [CChar](repeating: 0, count: Int(JMSG_LENGTH_MAX))
        func reason() -> String {
            String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        var w: Int32 = 0, h: Int32 = 0
        let sized = bytes.withUnsafeBufferPointer { source in
            e2_jpeg_read(source.baseAddress, UInt(source.count), nil, &w, &h, &message)
        }
        guard sized == 0 else { throw ImageDecodeError("\(name): cannot decode JPEG: \(reason())") }
        let width = Int(w), height = Int(h)
        if let problem = sizeProblem(width: width, height: height, name: name, maxPixels: maxPixels) { throw problem }
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        let status = bytes.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { out in
                e2_jpeg_read(source.baseAddress, UInt(source.count), out.baseAddress, &w, &h, &message)
            }
        }
        switch status {
        case 0: return try upright(ImageBuffer(width: width, height: height, bgr: pixels), jpeg: bytes, name: name)
        case 1: throw ImageDecodeError("\(name): the JPEG data is corrupt (\(reason()))")
        default: throw ImageDecodeError("\(name): cannot decode JPEG: \(reason())")
        }
    }

    /// `image` turned or mirrored as the JPEG's EXIF orientation says (unchanged without one, or for 1).
    private static func upright(_ image: ImageBuffer, jpeg bytes: [UInt8], name: String) throws(ImageDecodeError) -> ImageBuffer {
        guard let orientation = ExifOrientation(jpeg: bytes), orientation != .identity else { return image }
        guard let turned = orientation.upright(image.bgr, width: image.width, height: image.height, channels: 3) else {
            throw ImageDecodeError("\(name): cannot apply the EXIF orientation \(orientation.rawValue) to the "
                + "\(image.width)x\(image.height) picture")
        }
        return ImageBuffer(width: turned.width, height: turned.height, bgr: turned.pixels, orientation: orientation)
    }
}
