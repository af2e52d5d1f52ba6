/// The part of the portrait the warp samples from, with its own storage. Each pixel is one 64-bit word with
/// B, G and R in separate 16-bit lanes, so bilinear sampling blends all three channels with two multiplies per
/// step and no unpacking.
final class SourceWindow {
    /// Area of the portrait held, in image pixels.
    let rect: PixelRect
    /// `rect.width * rect.height` pixels, row-major: `B | G << 16 | R << 32`.
    let pixels: UnsafeMutablePointer<UInt64>

    /// Copies `rect` (inside the image) out of packed B,G,R `image` of width `imageWidth`.
    init(image: UnsafePointer<UInt8>, imageWidth: Int, rect: PixelRect) {
        self.rect = rect
        let count = max(rect.width * rect.height, 1)
        pixels = .allocate(capacity: count)
        pixels.initialize(repeating: 0, count: count)
        for y in 0..<rect.height {
            let src = image + ((rect.y + y) * imageWidth + rect.x) * 3
            let dst = pixels + y * rect.width
            for x in 0..<rect.width {
                dst[x] = SourceWindow.pack(src + 3 * x)
            }
        }
    }

    deinit { pixels.deallocate() }

    @inline(__always)
    static func pack(_ p: UnsafePointer<UInt8>) -> UInt64 {
        UInt64(p[0]) | UInt64(p[1]) << 16 | UInt64(p[2]) << 32
    }
}
