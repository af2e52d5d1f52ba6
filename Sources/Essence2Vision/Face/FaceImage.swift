import Essence2Runtime

/// A checked B,G,R image for face analysis: rows top to bottom, 3 bytes a pixel, no padding.
struct FaceImage {
    /// Largest side accepted (JPEG's own limit).
    static let maxSide = 65_535
    /// Most pixels accepted (a 2^28-pixel image is already 768 MiB of B,G,R).
    static let maxPixels = 1 << 28

    let pixels: [UInt8]
    package let width: Int
    package let height: Int

    /// Checks the dimensions and that `bgr` holds exactly `width * height * 3` bytes.
    init(bgr: [UInt8], width: Int, height: Int) throws(FaceAnalysisError) {
        guard width >= 1, height >= 1 else {
            throw FaceAnalysisError(.invalidImage, "image size \(width)x\(height) is empty")
        }
        guard width <= Self.maxSide, height <= Self.maxSide, width * height <= Self.maxPixels else {
            throw FaceAnalysisError(.invalidImage, "image size \(width)x\(height) exceeds the limit (sides up to \(Self.maxSide), at most \(Self.maxPixels) pixels)")
        }
        guard bgr.count == width * height * 3 else {
            throw FaceAnalysisError(.invalidImage, "image has \(bgr.count) bytes; \(width)x\(height) B,G,R needs \(width * height * 3)")
        }
        self.pixels = bgr
        self.width = width
        self.height = height
    }
}
