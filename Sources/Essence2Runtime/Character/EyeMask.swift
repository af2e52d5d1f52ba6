/// Where an eye differs from the skin its lid is drawn in: 0 (the skin itself, or hair and glasses of other
/// colours far from the eye's own pixels) ... 1 (the eye), grown by a pixel or two and softened, over the eye's
/// box. A blink covers only this, so a lid never paints over the hair or a glasses frame beside the eye.
struct EyeMask: Sendable {
    let originX: Int
    let originY: Int
    let side: Int
    let values: [Float]

    init(pixels: [UInt8], width: Int, height: Int, centre: SIMD2<Float>, radius: Float, lid: SIMD3<Float>) {
        let r = max(2, Int(radius.rounded(.up)))
        side = 2 * r + 1
        originX = Int(centre.x.rounded()) - r
        originY = Int(centre.y.rounded()) - r
        var raw = [Float](repeating: 0, count: side * side)
        for y in 0..<side {
            for x in 0..<side {
                let px = originX + x, py = originY + y
                guard px >= 0, py >= 0, px < width, py < height else { continue }
                let i = (py * width + px) * 3
                let d = abs(Float(pixels[i]) - lid.x) + abs(Float(pixels[i + 1]) - lid.y) + abs(Float(pixels[i + 2]) - lid.z)
                raw[y * side + x] = smoothstep(30, 90, d)
            }
        }
        // Only what is joined to the eye itself: flood from the differing pixels near the centre (so dark hair or a
        // frame beside a dark eye, across some skin, stays out).
        var joined = [Float](repeating: 0, count: side * side)
        var stack: [Int] = []
        let seedRadius = max(1.5, Float(r) * 0.55)
        for y in 0..<side {
            for x in 0..<side where raw[y * side + x] >= 0.5 {
                let dx = Float(x - r), dy = Float(y - r)
                if dx * dx + dy * dy <= seedRadius * seedRadius {
                    joined[y * side + x] = raw[y * side + x]
                    stack.append(y * side + x)
                }
            }
        }
        while let i = stack.popLast() {
            let x = i % side, y = i / side
            for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)] where nx >= 0 && ny >= 0 && nx < side && ny < side {
                let j = ny * side + nx
                if joined[j] == 0, raw[j] >= 0.3 {
                    joined[j] = raw[j]
                    stack.append(j)
                }
            }
        }
        raw = joined
        // Grow by about a sixth of the radius (at least a pixel), so the lid's edge overlaps the eye's outline.
        let grow = max(1, r / 6)
        var grown = raw
        for y in 0..<side {
            for x in 0..<side {
                var m: Float = 0
                for dy in max(0, y - grow)...min(side - 1, y + grow) {
                    for dx in max(0, x - grow)...min(side - 1, x + grow) { m = max(m, raw[dy * side + dx]) }
                }
                grown[y * side + x] = m
            }
        }
        values = grown
    }

    /// The mask at point `p` (frame pixels), 0 outside the box.
    func value(at p: SIMD2<Float>) -> Float {
        let fx = p.x - Float(originX), fy = p.y - Float(originY)
        guard fx >= 0, fy >= 0, fx < Float(side), fy < Float(side) else { return 0 }  // also false for NaN
        let x = Int(fx), y = Int(fy)
        guard x >= 0, y >= 0, x < side, y < side else { return 0 }
        return values[y * side + x]
    }
}
