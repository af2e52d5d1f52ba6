/// Soft weight of the head motion per pixel (0 still ... 255 moves fully with the head), stored over the
/// rectangle where it is non-zero.
struct HeadMask {
    /// Area covered by `values` (row-major, `rect.width` per row); the weight is 0 outside.
    let rect: PixelRect
    let values: [UInt8]

    /// Weight 0...1 at a point in image coordinates (nearest pixel).
    func weight(at p: SIMD2<Float>) -> Float {
        guard p.x.isFinite, p.y.isFinite else { return 0 }
        let x = Int(p.x.rounded(.down)) - rect.x, y = Int(p.y.rounded(.down)) - rect.y
        guard x >= 0, y >= 0, x < rect.width, y < rect.height else { return 0 }
        return Float(values[y * rect.width + x]) * (1 / 255)
    }

    /// Bounding box of the non-zero weights (empty rect at the origin when there are none).
    var support: PixelRect {
        var x0 = Int.max, y0 = Int.max, x1 = Int.min, y1 = Int.min
        for y in 0..<rect.height {
            let row = y * rect.width
            for x in 0..<rect.width where values[row + x] != 0 {
                x0 = min(x0, x); x1 = max(x1, x); y0 = min(y0, y); y1 = max(y1, y)
            }
        }
        guard x0 <= x1 else { return PixelRect(x: rect.x, y: rect.y, width: 0, height: 0) }
        return PixelRect(x: rect.x + x0, y: rect.y + y0, width: x1 - x0 + 1, height: y1 - y0 + 1)
    }

    /// The same weights over `area` (zero where this mask has none).
    func resampled(to area: PixelRect) -> HeadMask {
        var out = [UInt8](repeating: 0, count: max(area.width, 0) * max(area.height, 0))
        for y in 0..<area.height {
            let sy = area.y + y - rect.y
            guard sy >= 0, sy < rect.height else { continue }
            for x in 0..<area.width {
                let sx = area.x + x - rect.x
                if sx >= 0, sx < rect.width { out[y * area.width + x] = values[sy * rect.width + sx] }
            }
        }
        return HeadMask(rect: area, values: out)
    }

    /// A mask derived from the face: an ellipse over face, hair or headwear (full weight inside, fading
    /// over its outer 15%), plus the neck below the chin fading towards the collar.
    static func derived(metrics m: FaceMetrics, imageWidth: Int, imageHeight: Int) -> HeadMask {
        let f = m.frame
        let top = f.local(m.foreheadTop).y - 0.62 * m.height
        let bottom = f.local(m.chin).y + 0.05 * m.height
        let cy = (top + bottom) / 2, ry = (bottom - top) / 2
        let rx = 0.72 * m.width
        let chinY = f.local(m.chin).y
        let neckHalf = 0.36 * m.width
        let neckEnd = 0.5 * m.height
        let feather: Float = 1.15
        // Bounding box of the ellipse (with feather) and the neck, in image pixels.
        var corners: [SIMD2<Float>] = []
        for sx in [Float(-1), 1] {
            for sy in [Float(-1), 1] {
                corners.append(f.world(SIMD2(sx * rx * feather, cy + sy * ry * feather)))
                corners.append(f.world(SIMD2(sx * neckHalf * 1.3, chinY + (sy < 0 ? 0 : neckEnd))))
            }
        }
        func pixel(_ v: Float) -> Int { v.isFinite ? Int(min(max(v, -1e7), 1e7)) : 0 }
        let x0 = max(0, pixel(corners.map(\.x).min()!.rounded(.down)) - 1)
        let y0 = max(0, pixel(corners.map(\.y).min()!.rounded(.down)) - 1)
        let x1 = min(imageWidth, pixel(corners.map(\.x).max()!.rounded(.up)) + 1)
        let y1 = min(imageHeight, pixel(corners.map(\.y).max()!.rounded(.up)) + 1)
        let rect = PixelRect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
        var values = [UInt8](repeating: 0, count: rect.width * rect.height)
        for y in 0..<rect.height {
            for x in 0..<rect.width {
                let l = f.local(SIMD2(Float(rect.x + x) + 0.5, Float(rect.y + y) + 0.5))
                let ex = l.x / rx, ey = (l.y - cy) / ry
                let e = (ex * ex + ey * ey).squareRoot()
                let head = 1 - smoothstep(1, feather, e)
                var neck: Float = 0
                if l.y > chinY - 0.2 * m.height {
                    neck = (1 - smoothstep(0.75, 1.3, abs(l.x) / neckHalf)) * (1 - smoothstep(0.1 * m.height, neckEnd, l.y - chinY))
                }
                values[y * rect.width + x] = UInt8((max(head, neck) * 255).rounded())
            }
        }
        return HeadMask(rect: rect, values: values)
    }

    /// The avatar's own mask (`width * height` bytes), cropped to where it is non-zero; a hard mask (nearly all
    /// 0 or 255) is first softened by two box blurs of `radius` pixels so its edge never shears.
    static func softened(_ mask: [UInt8], width: Int, height: Int, radius: Int) -> HeadMask {
        let full = HeadMask(rect: PixelRect(x: 0, y: 0, width: width, height: height), values: mask)
        let s = full.support
        guard s.width > 0 else { return HeadMask(rect: s, values: []) }
        var partial = 0, nonZero = 0
        for v in mask where v != 0 {
            nonZero += 1
            if v != 255 { partial += 1 }
        }
        if partial * 20 >= nonZero { return full.resampled(to: s) }
        let r = max(radius, 1)
        let grow = 2 * r + 1
        let x0 = max(0, s.x - grow), y0 = max(0, s.y - grow)
        let area2 = PixelRect(x: x0, y: y0, width: min(width, s.maxX + grow) - x0,
                              height: min(height, s.maxY + grow) - y0)
        var cropped = full.resampled(to: area2)
        var values = cropped.values.map { Int32($0) }
        let w = area2.width, h = area2.height
        for _ in 0..<2 {
            values = HeadMask.boxBlur(values, width: w, height: h, radius: r)
        }
        cropped = HeadMask(rect: area2, values: values.map { UInt8(clamping: $0) })
        return cropped
    }

    /// Separable box blur with clamped edges.
    private static func boxBlur(_ v: [Int32], width w: Int, height h: Int, radius r: Int) -> [Int32] {
        var tmp = [Int32](repeating: 0, count: v.count)
        let n = Int32(2 * r + 1)
        for y in 0..<h {
            var acc: Int32 = 0
            for k in -r...r { acc += v[y * w + min(max(k, 0), w - 1)] }
            for x in 0..<w {
                tmp[y * w + x] = acc / n
                acc += v[y * w + min(x + r + 1, w - 1)] - v[y * w + max(x - r, 0)]
            }
        }
        var out = [Int32](repeating: 0, count: v.count)
        for x in 0..<w {
            var acc: Int32 = 0
            for k in -r...r { acc += tmp[min(max(k, 0), h - 1) * w + x] }
            for y in 0..<h {
                out[y * w + x] = acc / n
                acc += tmp[min(y + r + 1, h - 1) * w + x] - tmp[max(y - r, 0) * w + x]
            }
        }
        return out
    }
}
