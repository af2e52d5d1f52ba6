/// The part of the portrait the warp samples from, as 32-bit B,G,R,0 pixels (one aligned load per pixel for
/// bilinear sampling), with its own storage.
final class SourceWindow {
    /// Area of the portrait held, in image pixels.
    let rect: PixelRect
    /// `rect.width * rect.height` pixels, row-major; bytes B, G, R, 0 in memory order.
    let pixels: UnsafeMutablePointer<UInt32>

    /// Copies `rect` (at least 2x2, inside the image) out of packed B,G,R `image` of width `imageWidth`.
    init(image: UnsafePointer<UInt8>, imageWidth: Int, rect: PixelRect) {
        self.rect = rect
        let count = max(rect.width * rect.height, 1)
        pixels = .allocate(capacity: count)
        pixels.initialize(repeating: 0, count: count)
        for y in 0..<rect.height {
            let src = image + ((rect.y + y) * imageWidth + rect.x) * 3
            let dst = pixels + y * rect.width
            for x in 0..<rect.width {
                let b = UInt32(src[3 * x]), g = UInt32(src[3 * x + 1]), r = UInt32(src[3 * x + 2])
                dst[x] = b | g << 8 | r << 16
            }
        }
    }

    deinit { pixels.deallocate() }
}
