/// One avatar, as read from an `.imx` file: the portrait and everything the renderer needs about its face.
package struct Avatar: Sendable {
    /// Display name (from the manifest).
    package var name: String
    /// Portrait size in pixels; FULL-mode frames have this size.
    package var width: Int
    package var height: Int
    /// The portrait, packed B,G,R, rows top to bottom, no padding: `width * height * 3` bytes.
    package var pixels: [UInt8]
    package var landmarks: FaceLandmarks
    package var mesh: FaceMesh
    /// The square crop shown in HEAD mode, inside the portrait.
    package var headBox: PixelRect
    /// Soft mask of the moving head region, one byte per pixel (0 still ... 255 moves with the head),
    /// `width * height` bytes; empty when the file carries none (the renderer then derives one).
    package var headMask: [UInt8]
    /// Seed of the idle motion (blinks, breathing, head movement) unless the host sets another.
    package var seed: UInt64

    package init(name: String, width: Int, height: Int, pixels: [UInt8], landmarks: FaceLandmarks, mesh: FaceMesh,
                headBox: PixelRect, headMask: [UInt8] = [], seed: UInt64 = 0x5EED) {
        self.name = name
        self.width = width
        self.height = height
        self.pixels = pixels
        self.landmarks = landmarks
        self.mesh = mesh
        self.headBox = headBox
        self.headMask = headMask
        self.seed = seed
    }
}
