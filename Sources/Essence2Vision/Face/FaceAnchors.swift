import Essence2Runtime

/// SSD anchor centres, as MediaPipe's SsdAnchorsCalculator makes them with a fixed anchor size (every anchor
/// is 1 x 1 in normalised input units, so only the centres matter).
enum FaceAnchors {
    /// The 896 anchors of BlazeFace short range: 128x128 input, 4 layers with strides 8, 16, 16, 16, one
    /// aspect ratio plus one interpolated scale per layer, offsets 0.5. Layers with the same stride share
    /// one feature map: 16x16 cells with 2 anchors, then 8x8 cells with 6.
    static let shortRange: [SIMD2<Float>] = centres(inputSize: 128, strides: [8, 16, 16, 16], anchorsPerLayer: 2, offset: 0.5)

    /// Anchor centres in normalised input coordinates (0 ... 1), in the detector's output order: per group
    /// of consecutive layers with the same stride, cells row by row, `anchorsPerLayer` times the group's
    /// layer count anchors per cell.
    static func centres(inputSize: Int, strides: [Int], anchorsPerLayer: Int, offset: Float) -> [SIMD2<Float>] {
        var anchors: [SIMD2<Float>] = []
        var layer = 0
        while layer < strides.count {
            var last = layer
            while last < strides.count, strides[last] == strides[layer] { last += 1 }
            let perCell = anchorsPerLayer * (last - layer)
            let stride = max(1, strides[layer])
            let cells = (inputSize + stride - 1) / stride
            for y in 0..<cells {
                for x in 0..<cells {
                    let centre = SIMD2((Float(x) + offset) / Float(cells), (Float(y) + offset) / Float(cells))
                    for _ in 0..<perCell { anchors.append(centre) }
                }
            }
            layer = last
        }
        return anchors
    }
}
