/// One frame being drawn: the output buffer showing the image area `view`, the rectangle `dirty` being redrawn
/// (inside `view` and the source window), and which of its pixels a triangle has drawn already.
struct FrameCanvas {
    /// Packed B,G,R output, `view.width * 3` bytes per row.
    let out: UnsafeMutablePointer<UInt8>
    let view: PixelRect
    let dirty: PixelRect
    /// One byte per `dirty` pixel, row-major: non-zero once drawn.
    let coverage: UnsafeMutablePointer<UInt8>
    let source: UnsafePointer<UInt64>
    let sourceRect: PixelRect

    @inline(__always)
    func outPixel(_ x: Int, _ y: Int) -> UnsafeMutablePointer<UInt8> {
        out + ((y - view.y) * view.width + (x - view.x)) * 3
    }

    @inline(__always)
    static func store(_ v: UInt64, _ o: UnsafeMutablePointer<UInt8>) {
        o[0] = UInt8(truncatingIfNeeded: v)
        o[1] = UInt8(truncatingIfNeeded: v >> 16)
        o[2] = UInt8(truncatingIfNeeded: v >> 32)
    }

    /// Bilinear sample at fixed-point window coordinates (16 fraction bits, already clamped). Each channel sits
    /// in its own 16-bit lane, where 8-bit values times 8-bit weights cannot overflow.
    @inline(__always)
    static func bilinear(_ src: UnsafePointer<UInt64>, _ stride: Int, _ sx: Int, _ sy: Int) -> UInt64 {
        let lanes: UInt64 = 0x0000_00FF_00FF_00FF
        let p = src + ((sy >> 16) &* stride &+ (sx >> 16))
        let fx = UInt64(truncatingIfNeeded: (sx >> 8) & 255), fy = UInt64(truncatingIfNeeded: (sy >> 8) & 255)
        let gx = 256 &- fx, gy = 256 &- fy
        let top = ((p[0] &* gx &+ p[1] &* fx) >> 8) & lanes
        let bottom = ((p[stride] &* gx &+ p[stride &+ 1] &* fx) >> 8) & lanes
        return ((top &* gy &+ bottom &* fy) >> 8) & lanes
    }

    /// One triangle edge as x = `x0 + (y - y0) * slope`, set up from its endpoints in a fixed order so the two
    /// triangles sharing it compute exactly the same x.
    struct Edge {
        var x0: Float, y0: Float, slope: Float

        @inline(__always)
        init(_ p: SIMD2<Float>, _ q: SIMD2<Float>) {
            let first = p.y < q.y || (p.y == q.y && p.x < q.x)
            let s = first ? p : q, t = first ? q : p
            let dy = t.y - s.y
            x0 = s.x; y0 = s.y
            slope = dy > 0 ? (t.x - s.x) / dy : 0
        }

        @inline(__always)
        func x(_ y: Float) -> Float { x0 + (y - y0) * slope }
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
        // A map this steep comes from a (nearly) degenerate triangle, which covers no pixel centre anyway.
        let limit: Float = 4096
        guard abs(map.a) < limit, abs(map.b) < limit, abs(map.d) < limit, abs(map.e) < limit,
              abs(map.c) < 1e7, abs(map.f) < 1e7 else { return }
        let yFirst = FrameCanvas.ceilToInt(a.y - 0.5)
        let yStart = max(dirty.y, yFirst)
        let yEnd = min(dirty.maxY, FrameCanvas.ceilToInt(c.y - 0.5))
        guard yStart < yEnd else { return }
        let stride = sourceRect.width
        let ox = Float(sourceRect.x) + 0.5, oy = Float(sourceRect.y) + 0.5
        let maxSX = ((sourceRect.width - 1) << 16) - 1, maxSY = ((sourceRect.height - 1) << 16) - 1
        // Source positions in 16.16 fixed point, linear in the destination pixel: s = row + d * x, where `row`
        // (at column 0) is set at the triangle's own first row and steps by a fixed amount per row. A pixel's
        // position depends only on the triangle and the pixel, never on which band or rectangle is drawn.
        let dsx = Int((map.a * 65536).rounded()), dsy = Int((map.d * 65536).rounded())
        let rowStepX = Int((map.b * 65536).rounded()), rowStepY = Int((map.e * 65536).rounded())
        let y0c = Float(yFirst) + 0.5
        var rowX = Int(((map.a * 0.5 + map.b * y0c + map.c - ox) * 65536).rounded())
            &+ rowStepX &* (yStart - yFirst)
        var rowY = Int(((map.d * 0.5 + map.e * y0c + map.f - oy) * 65536).rounded())
            &+ rowStepY &* (yStart - yFirst)
        let src = source
        let long = Edge(a, c), upper = Edge(a, b), lower = Edge(b, c)
        for y in yStart..<yEnd {
            defer {
                rowX &+= rowStepX
                rowY &+= rowStepY
            }
            let yc = Float(y) + 0.5
            let xa = long.x(yc)
            let xb = yc < b.y ? upper.x(yc) : lower.x(yc)
            let xs = max(dirty.x, FrameCanvas.ceilToInt(min(xa, xb) - 0.5))
            let xe = min(dirty.maxX, FrameCanvas.ceilToInt(max(xa, xb) - 0.5))
            guard xs < xe else { continue }
            var sx = rowX &+ dsx &* xs, sy = rowY &+ dsy &* xs
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

    /// The smallest integer at or above `v` (|v| well inside Int's range): `ceil` without a call into libm,
    /// the same value for the same input in every triangle.
    @inline(__always)
    static func ceilToInt(_ v: Float) -> Int {
        let t = Int(v)
        return Float(t) < v ? t + 1 : t
    }

    /// Fills the pixels of `dirty` no triangle drew: the portrait moved by the head transform, weighted per pixel
    /// by the head mask (`mask`, laid out over `sourceRect`), so the motion fades into the still background.
    /// `inverseHead` maps destination to source; nil means no head motion (plain copy). With `skipOutside`, the
    /// pixels outside that rectangle where the mask is 0 are left as they are (the output already shows the
    /// portrait there).
    /// `maskSpans` gives, per row of `sourceRect`, the image columns [lo, hi) outside which the mask is 0.
    func fillBackground(inverseHead: Affine2?, mask: UnsafePointer<UInt8>, maskSpans: UnsafePointer<SIMD2<Int32>>,
                        skipOutside keep: PixelRect? = nil) {
        let stride = sourceRect.width
        let src = source
        let maxSX = ((sourceRect.width - 1) << 16) - 1, maxSY = ((sourceRect.height - 1) << 16) - 1
        let ox = Float(sourceRect.x) + 0.5, oy = Float(sourceRect.y) + 0.5
        for y in dirty.y..<dirty.maxY {
            let cov = coverage + ((y - dirty.y) * dirty.width - dirty.x)
            let srow = src + ((y - sourceRect.y) * stride - sourceRect.x)
            let mrow = mask + ((y - sourceRect.y) * stride - sourceRect.x)
            // Columns [keepX0, keepX1) of this row are inside `keep`: mask-0 pixels elsewhere can be skipped, and
            // the row is walked only over the columns where the mask or `keep` needs writing.
            var keepX0 = Int.min, keepX1 = Int.max
            var x0 = dirty.x, x1 = dirty.maxX
            if let keep {
                keepX0 = 0
                keepX1 = 0
                if y >= keep.y, y < keep.maxY, keep.width > 0 {
                    keepX0 = keep.x
                    keepX1 = keep.maxX
                }
                let span = maskSpans[y - sourceRect.y]
                var lo = Int(span.x), hi = Int(span.y)
                if keepX0 < keepX1 {
                    if lo < hi {
                        lo = min(lo, keepX0)
                        hi = max(hi, keepX1)
                    } else {
                        lo = keepX0
                        hi = keepX1
                    }
                }
                x0 = max(x0, lo)
                x1 = min(x1, hi)
                if x0 >= x1 { continue }
            }
            var o = outPixel(x0, y)
            guard let h = inverseHead else {
                for x in x0..<x1 {
                    if cov[x] == 0, mrow[x] != 0 || (x >= keepX0 && x < keepX1) { FrameCanvas.store(srow[x], o) }
                    o += 3
                }
                continue
            }
            // Source position = p + w * (head(p) - p), w the mask weight: all in 16.16 fixed point along the row.
            let yc = Float(y) + 0.5
            let xc = Float(dirty.x) + 0.5
            let dx = h.a * xc + h.b * yc + h.c - xc
            let dy = h.d * xc + h.e * yc + h.f - yc
            let baseX = Int((min(max(xc - ox, -4096), 65536) * 65536).rounded())
            let baseY = Int((min(max(yc - oy, -4096), 65536) * 65536).rounded())
            let dispX = Int((min(max(dx, -4096), 4096) * 65536).rounded())
            let dispY = Int((min(max(dy, -4096), 4096) * 65536).rounded())
            let stepDX = Int(((h.a - 1) * 65536).rounded()), stepDY = Int((h.d * 65536).rounded())
            var k = x0 - dirty.x
            for x in x0..<x1 {
                if cov[x] == 0 {
                    let m = Int(mrow[x])
                    if m == 0 {
                        if x >= keepX0, x < keepX1 { FrameCanvas.store(srow[x], o) }
                    } else {
                        // Weight 0...256; at 256 (m = 255) the displacement is taken whole.
                        let ddx = dispX &+ stepDX &* k, ddy = dispY &+ stepDY &* k
                        var sx = baseX &+ (k << 16), sy = baseY
                        if m == 255 {
                            sx &+= ddx
                            sy &+= ddy
                        } else {
                            let w = m &+ (m >> 7)
                            sx &+= (ddx &* w) >> 8
                            sy &+= (ddy &* w) >> 8
                        }
                        FrameCanvas.store(FrameCanvas.bilinear(src, stride, min(max(sx, 0), maxSX), min(max(sy, 0), maxSY)), o)
                    }
                }
                k &+= 1
                o += 3
            }
        }
    }
}
