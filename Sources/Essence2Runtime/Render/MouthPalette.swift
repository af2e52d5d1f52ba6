/// Colours of the synthesized mouth interior, taken from the portrait (B, G, R, 0...255).
struct MouthPalette {
    var lip: SIMD3<Float>
    var teeth: SIMD3<Float>
    var cavity: SIMD3<Float>
    var tongue: SIMD3<Float>
    /// Gums: the lips' colour, lighter and pinker.
    var gum: SIMD3<Float>

    /// Samples the lips, the cheeks (for exposure and the light's colour) and, when the portrait shows them, the teeth.
    init(image: UnsafePointer<UInt8>, width: Int, height: Int, points: [SIMD2<Float>], mouth: MouthGeometry,
         faceHeight: Float) {
        func pixel(_ x: Int, _ y: Int) -> SIMD3<Float> {
            let p = image + (y * width + x) * 3
            return SIMD3(Float(p[0]), Float(p[1]), Float(p[2]))
        }
        func luma(_ c: SIMD3<Float>) -> Float { 0.114 * c.x + 0.587 * c.y + 0.299 * c.z }
        let outer = MediaPipeFace.lowerOuterLip.map { points[$0] } + MediaPipeFace.upperOuterLip.reversed().map { points[$0] }
        let inner = MediaPipeFace.lowerInnerLip.map { points[$0] } + MediaPipeFace.upperInnerLip.reversed().map { points[$0] }
        let x0 = max(0, Int(outer.map(\.x).min()!.rounded(.down)))
        let x1 = min(width - 1, Int(outer.map(\.x).max()!.rounded(.up)))
        let y0 = max(0, Int(outer.map(\.y).min()!.rounded(.down)))
        let y1 = min(height - 1, Int(outer.map(\.y).max()!.rounded(.up)))
        var lipSum = SIMD3<Float>.zero, lipN: Float = 0
        var insideMouth: [SIMD3<Float>] = []
        if x0 <= x1, y0 <= y1 {
            for y in y0...y1 {
                for x in x0...x1 {
                    let p = SIMD2(Float(x) + 0.5, Float(y) + 0.5)
                    guard MouthPalette.contains(outer, p) else { continue }
                    if MouthPalette.contains(inner, p) { insideMouth.append(pixel(x, y)) }
                    else { lipSum += pixel(x, y); lipN += 1 }
                }
            }
        }
        lip = lipN > 0 ? lipSum / lipN : SIMD3(95, 100, 165)

        let r = max(1, Int(0.03 * faceHeight))
        var skinSum = SIMD3<Float>.zero, skinN: Float = 0
        for i in MediaPipeFace.cheekPoints where i < points.count {
            let cx = Int(points[i].x), cy = Int(points[i].y)
            let xa = max(0, cx - r), xb = min(width - 1, cx + r), ya = max(0, cy - r), yb = min(height - 1, cy + r)
            guard xa <= xb, ya <= yb else { continue }
            for y in ya...yb {
                for x in xa...xb {
                    skinSum += pixel(x, y); skinN += 1
                }
            }
        }
        let skin = skinN > 0 ? skinSum / skinN : SIMD3<Float>(120, 150, 190)

        // Default teeth: natural enamel, brighter than the skin (as teeth read in a face), under the light's colour as the portrait's
        // brightest unclipped pixels show it (its white balance: a shirt, the whites of the eyes, a highlight).
        let light = MouthPalette.lightColour(image: image, width: width, height: height)
        let level = min(max(1.3 * luma(skin), 120), 225)
        var teeth = MouthPalette.enamel / luma(MouthPalette.enamel) * light * level
        if mouth.photographedGapMax >= 2, insideMouth.count >= 8 {
            let sorted = insideMouth.sorted { luma($0) < luma($1) }
            let bright = sorted[(sorted.count * 6 / 10)...]
            let mean = bright.reduce(SIMD3<Float>.zero, +) / Float(bright.count)
            if luma(mean) > 1.2 * luma(lip) { teeth = mean }
        }
        self.teeth = teeth
        cavity = lip * 0.2
        tongue = SIMD3(lip.x * 0.72, lip.y * 0.68, min(255, lip.z * 0.95))
        gum = SIMD3(min(255, lip.x * 1.05), min(255, lip.y * 0.98), min(255, lip.z * 1.08))
    }

    /// Natural enamel in neutral light (B, G, R): a warm off-white.
    static let enamel = SIMD3<Float>(212, 230, 240)

    /// The colour of the light as a white surface in the portrait shows it, per channel relative to its brightness
    /// (1 for neutral light, each channel kept within 0.85...1.15): the mean of the brightest 2 % of the pixels that
    /// no channel clips, or neutral when there are none.
    static func lightColour(image: UnsafePointer<UInt8>, width: Int, height: Int) -> SIMD3<Float> {
        let n = max(0, width * height)
        var histogram = [Int](repeating: 0, count: 256)
        @inline(__always) func luma(_ p: UnsafePointer<UInt8>) -> Int {
            (29 * Int(p[0]) + 150 * Int(p[1]) + 77 * Int(p[2])) >> 8
        }
        @inline(__always) func clipped(_ p: UnsafePointer<UInt8>) -> Bool { p[0] >= 250 || p[1] >= 250 || p[2] >= 250 }
        var counted = 0
        for i in 0..<n {
            let p = image + i * 3
            guard !clipped(p) else { continue }
            histogram[luma(p)] += 1
            counted += 1
        }
        guard counted > 0 else { return SIMD3(repeating: 1) }
        var threshold = 255, above = 0
        while threshold > 0, above + histogram[threshold] < max(1, counted / 50) {
            above += histogram[threshold]
            threshold -= 1
        }
        var sum = SIMD3<Float>.zero, count: Float = 0
        for i in 0..<n {
            let p = image + i * 3
            guard !clipped(p), luma(p) >= threshold else { continue }
            sum += SIMD3(Float(p[0]), Float(p[1]), Float(p[2]))
            count += 1
        }
        let white = sum / max(count, 1)
        let l = 0.114 * white.x + 0.587 * white.y + 0.299 * white.z
        guard l > 8 else { return SIMD3(repeating: 1) }
        let c = white / l
        return SIMD3(min(max(c.x, 0.85), 1.15), min(max(c.y, 0.85), 1.15), min(max(c.z, 0.85), 1.15))
    }

    /// Even-odd point-in-polygon test.
    static func contains(_ poly: [SIMD2<Float>], _ p: SIMD2<Float>) -> Bool {
        var inside = false
        var j = poly.count - 1
        for i in 0..<poly.count {
            let a = poly[i], b = poly[j]
            if (a.y > p.y) != (b.y > p.y), p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
            j = i
        }
        return inside
    }
}
