/// One avatar, as read from an `.imx` file: the portrait and everything the renderer needs about its face.
public struct Avatar: Sendable {
    /// Display name (from the manifest).
    public var name: String
    /// Portrait size in pixels; FULL-mode frames have this size.
    public var width: Int
    public var height: Int
    /// The portrait, packed B,G,R, rows top to bottom, no padding: `width * height * 3` bytes.
    public var pixels: [UInt8]
    public var landmarks: FaceLandmarks
    public var mesh: FaceMesh
    /// The square crop shown in HEAD mode, inside the portrait.
    public var headBox: PixelRect
    /// Soft mask of the moving head region, one byte per pixel (0 still ... 255 moves with the head),
    /// `width * height` bytes; empty when the file carries none (the renderer then derives one).
    public var headMask: [UInt8]
    /// Seed of the idle motion (blinks, breathing, head movement) unless the host sets another.
    public var seed: UInt64

    public init(name: String, width: Int, height: Int, pixels: [UInt8], landmarks: FaceLandmarks, mesh: FaceMesh,
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
