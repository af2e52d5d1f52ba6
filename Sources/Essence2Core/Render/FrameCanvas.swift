/// One frame being drawn: the output buffer showing the image area `view`, the rectangle `dirty` being redrawn
/// (inside `view` and the source window), and which of its pixels a triangle has drawn already.
struct FrameCanvas {
    /// Packed B,G,R output, `view.width * 3` bytes per row.
    let out: UnsafeMutablePointer<UInt8>
    let view: PixelRect
    let dirty: PixelRect
    /// One byte per `dirty` pixel, row-major: non-zero once drawn.
    let coverage: UnsafeMutablePointer<UInt8>
    let source: UnsafePointer<UInt32>
    let sourceRect: PixelRect

    @inline(__always)
    func outPixel(_ x: Int, _ y: Int) -> UnsafeMutablePointer<UInt8> {
        out + ((y - view.y) * view.width + (x - view.x)) * 3
    }

    @inline(__always)
    static func store(_ v: UInt32, _ o: UnsafeMutablePointer<UInt8>) {
        o[0] = UInt8(truncatingIfNeeded: v)
        o[1] = UInt8(truncatingIfNeeded: v >> 8)
        o[2] = UInt8(truncatingIfNeeded: v >> 16)
    }

    /// Bilinear sample at fixed-point window coordinates (16 fraction bits, already clamped).
    @inline(__always)
    static func bilinear(_ src: UnsafePointer<UInt32>, _ stride: Int, _ sx: Int, _ sy: Int) -> UInt32 {
        let p = src + ((sy >> 16) * stride + (sx >> 16))
        let fx = UInt32(truncatingIfNeeded: (sx >> 8) & 255), fy = UInt32(truncatingIfNeeded: (sy >> 8) & 255)
        let gx = 256 &- fx, gy = 256 &- fy
        let c00 = p[0], c01 = p[1], c10 = p[stride], c11 = p[stride + 1]
        let rbT = ((c00 & 0xFF00FF) &* gx &+ (c01 & 0xFF00FF) &* fx) >> 8 & 0xFF00FF
        let gT = ((c00 & 0xFF00) &* gx &+ (c01 & 0xFF00) &* fx) >> 8 & 0xFF00
        let rbB = ((c10 & 0xFF00FF) &* gx &+ (c11 & 0xFF00FF) &* fx) >> 8 & 0xFF00FF
        let gB = ((c10 & 0xFF00) &* gx &+ (c11 & 0xFF00) &* fx) >> 8 & 0xFF00
        let rb = (rbT &* gy &+ rbB &* fy) >> 8 & 0xFF00FF
        let g = (gT &* gy &+ gB &* fy) >> 8 & 0xFF00
        return rb | g
    }

    /// x of the edge `p`-`q` at height `y`, computed the same way for both triangles that share the edge.
    @inline(__always)
    static func edgeX(_ p: SIMD2<Float>, _ q: SIMD2<Float>, _ y: Float) -> Float {
        let first = p.y < q.y || (p.y == q.y && p.x < q.x)
        let s = first ? p : q, t = first ? q : p
        let dy = t.y - s.y
        return dy > 0 ? s.x + (y - s.y) * ((t.x - s.x) / dy) : s.x
    }

    /// Draws the destination triangle `p0 p1 p2` into the still-undrawn pixels of `dirty`, sampling the source
    /// through `map` (destination to source, image coordinates). A pixel belongs to the triangle when its
    /// centre does (half-open on the right and bottom), so triangles sharing an edge leave neither gaps nor
    /// overlaps.
    func drawTriangle(_ p0: SIMD2<Float>, _ p1: SIMD2<Float>, _ p2: SIMD2<Float>, map: Affine2) {
        var a = p0, b = p1, c = p2
        if a.y > b.y { swap(&a, &b) }
        if b.y > c.y { swap(&b, &c) }
        if a.y > b.y { swap(&a, &b) }
        let lo: Float = -1e6, hi: Float = 1e6
        guard a.y > lo, c.y < hi, min(a.x, b.x, c.x) > lo, max(a.x, b.x, c.x) < hi else { return }
        let yStart = max(dirty.y, Int((a.y - 0.5).rounded(.up)))
        let yEnd = min(dirty.maxY, Int((c.y - 0.5).rounded(.up)))
        guard yStart < yEnd else { return }
        let stride = sourceRect.width
        let ox = Float(sourceRect.x) + 0.5, oy = Float(sourceRect.y) + 0.5
        let maxSX = ((sourceRect.width - 1) << 16) - 1, maxSY = ((sourceRect.height - 1) << 16) - 1
        let dsx = Int((map.a * 65536).rounded()), dsy = Int((map.d * 65536).rounded())
        let src = source
        for y in yStart..<yEnd {
            let yc = Float(y) + 0.5
            let xa = FrameCanvas.edgeX(a, c, yc)
            let xb = yc < b.y ? FrameCanvas.edgeX(a, b, yc) : FrameCanvas.edgeX(b, c, yc)
            let xs = max(dirty.x, Int((min(xa, xb) - 0.5).rounded(.up)))
            let xe = min(dirty.maxX, Int((max(xa, xb) - 0.5).rounded(.up)))
            guard xs < xe else { continue }
            let xc = Float(xs) + 0.5
            let fx = min(max(map.a * xc + map.b * yc + map.c - ox, -4096), 65536)
            let fy = min(max(map.d * xc + map.e * yc + map.f - oy, -4096), 65536)
            var sx = Int(fx * 65536), sy = Int(fy * 65536)
            let cov = coverage + ((y - dirty.y) * dirty.width - dirty.x)
            var o = outPixel(xs, y)
            let n = xe - xs
            let ex = sx &+ dsx &* (n - 1), ey = sy &+ dsy &* (n - 1)
            if min(sx, ex) >= 0, max(sx, ex) <= maxSX, min(sy, ey) >= 0, max(sy, ey) <= maxSY {
                // The whole span samples inside the window (positions are linear in x): no clamping.
                for x in xs..<xe {
                    if cov[x] == 0 {
                        cov[x] = 1
                        FrameCanvas.store(FrameCanvas.bilinear(src, stride, sx, sy), o)
                    }
                    sx &+= dsx
                    sy &+= dsy
                    o += 3
                }
            } else {
                for x in xs..<xe {
                    if cov[x] == 0 {
                        cov[x] = 1
                        let v = FrameCanvas.bilinear(src, stride, min(max(sx, 0), maxSX), min(max(sy, 0), maxSY))
                        FrameCanvas.store(v, o)
                    }
                    sx &+= dsx
                    sy &+= dsy
                    o += 3
                }
            }
        }
    }

    /// Fills the pixels of `dirty` no triangle drew: the portrait moved by the head transform, weighted per pixel
    /// by the head mask (`mask`, laid out over `sourceRect`), so the motion fades into the still background.
    /// `inverseHead` maps destination to source; nil means no head motion (plain copy).
    func fillBackground(inverseHead: Affine2?, mask: UnsafePointer<UInt8>) {
        let stride = sourceRect.width
        let src = source
        let maxSX = ((sourceRect.width - 1) << 16) - 1, maxSY = ((sourceRect.height - 1) << 16) - 1
        let ox = Float(sourceRect.x) + 0.5, oy = Float(sourceRect.y) + 0.5
        for y in dirty.y..<dirty.maxY {
            let cov = coverage + ((y - dirty.y) * dirty.width - dirty.x)
            let srow = src + ((y - sourceRect.y) * stride - sourceRect.x)
            let mrow = mask + ((y - sourceRect.y) * stride - sourceRect.x)
            var o = outPixel(dirty.x, y)
            guard let h = inverseHead else {
                for x in dirty.x..<dirty.maxX {
                    if cov[x] == 0 { FrameCanvas.store(srow[x], o) }
                    o += 3
                }
                continue
            }
            let yc = Float(y) + 0.5
            var xc = Float(dirty.x) + 0.5
            var dx = h.a * xc + h.b * yc + h.c - xc
            var dy = h.d * xc + h.e * yc + h.f - yc
            let ddx = h.a - 1, ddy = h.d
            // Where the weight is full the map is the head transform itself: fixed-point steps, no float per pixel.
            let fullX = Int((min(max(xc + dx - ox, -4096), 65536) * 65536).rounded())
            let fullY = Int((min(max(yc + dy - oy, -4096), 65536) * 65536).rounded())
            let stepX = Int((h.a * 65536).rounded()), stepY = Int((h.d * 65536).rounded())
            var k = 0
            for x in dirty.x..<dirty.maxX {
                if cov[x] == 0 {
                    let m = mrow[x]
                    if m == 0 {
                        FrameCanvas.store(srow[x], o)
                    } else if m == 255 {
                        let sx = min(max(fullX &+ stepX &* k, 0), maxSX), sy = min(max(fullY &+ stepY &* k, 0), maxSY)
                        FrameCanvas.store(FrameCanvas.bilinear(src, stride, sx, sy), o)
                    } else {
                        let w = Float(m) * (1 / 255)
                        let qx = xc + w * dx - ox, qy = yc + w * dy - oy
                        let sx = min(max(Int(qx * 65536), 0), maxSX), sy = min(max(Int(qy * 65536), 0), maxSY)
                        FrameCanvas.store(FrameCanvas.bilinear(src, stride, sx, sy), o)
                    }
                }
                k += 1
                xc += 1
                dx += ddx
                dy += ddy
                o += 3
            }
        }
    }
}
