import Essence2Runtime

extension CharacterAvatarBuilder {
    /// The frame's backdrop, B,G,R.
    static func backdropPixels(_ backdrop: Backdrop, bgr: [UInt8], alpha: [UInt8]?, width: Int, height: Int,
                               outW: Int, outH: Int) -> [UInt8] {
        var frame = [UInt8](repeating: 0, count: outW * outH * 3)
        switch backdrop {
        case .colour(let c):
            for i in 0..<(outW * outH) { frame[3 * i] = c.x; frame[3 * i + 1] = c.y; frame[3 * i + 2] = c.z }
        case .picture(let pixels, let w, let h):
            guard w > 0, h > 0, pixels.count == w * h * 3 else { return backdropPixels(.fromPicture, bgr: bgr, alpha: alpha, width: width, height: height, outW: outW, outH: outH) }
            let cover = max(Float(outW) / Float(w), Float(outH) / Float(h))
            let cw = max(outW, Int((Float(w) * cover).rounded(.up))), ch = max(outH, Int((Float(h) * cover).rounded(.up)))
            let scaled = ImageResampler.resize(pixels, width: w, height: h, channels: 3, to: cw, ch)
            let x0 = (cw - outW) / 2, y0 = (ch - outH) / 2
            for y in 0..<outH {
                for x in 0..<(outW * 3) { frame[y * outW * 3 + x] = scaled[(y + y0) * cw * 3 + x0 * 3 + x] }
            }
        case .fromPicture:
            var top = SIMD3<Float>(0, 0, 0), bottom = top
            if let alpha {
                // The character's mean colour, lightened: light above, a little deeper below.
                var sum = SIMD3<Float>(0, 0, 0), n: Float = 0
                for i in stride(from: 0, to: width * height, by: 7) where alpha[i] > 200 {
                    sum += SIMD3(Float(bgr[3 * i]), Float(bgr[3 * i + 1]), Float(bgr[3 * i + 2]))
                    n += 1
                }
                let mean = n > 0 ? sum / n : SIMD3(180, 180, 180)
                let white = SIMD3<Float>(255, 255, 255)
                top = mean * 0.22 + white * 0.78
                bottom = mean * 0.45 + white * 0.55
            } else {
                // An opaque picture: its border's colour, so the picture meets the backdrop without a seam.
                var border: [SIMD3<Float>] = []
                for x in stride(from: 0, to: width, by: max(1, width / 64)) {
                    for y in [0, height - 1] {
                        let i = 3 * (y * width + x)
                        border.append(SIMD3(Float(bgr[i]), Float(bgr[i + 1]), Float(bgr[i + 2])))
                    }
                }
                for y in stride(from: 0, to: height, by: max(1, height / 64)) {
                    for x in [0, width - 1] {
                        let i = 3 * (y * width + x)
                        border.append(SIMD3(Float(bgr[i]), Float(bgr[i + 1]), Float(bgr[i + 2])))
                    }
                }
                let sorted = border.sorted { $0.x + $0.y + $0.z < $1.x + $1.y + $1.z }
                top = sorted[sorted.count / 2]
                bottom = top
            }
            for y in 0..<outH {
                let t = Float(y) / Float(max(outH - 1, 1))
                let c = top * (1 - t) + bottom * t
                for x in 0..<outW {
                    let o = 3 * (y * outW + x)
                    frame[o] = UInt8(c.x.rounded()); frame[o + 1] = UInt8(c.y.rounded()); frame[o + 2] = UInt8(c.z.rounded())
                }
            }
        }
        return frame
    }

    /// An outline when none is given: the opaque part's boundary seen from the features' centre (16 rays), or,
    /// for an opaque picture, an ellipse around the eyes and mouth.
    static func defaultOutline(points: CharacterPoints, alpha: [UInt8]?, width: Int, height: Int,
                               lo: SIMD2<Int>, hi: SIMD2<Int>) -> [SIMD2<Float>] {
        let centre = (points.leftEye + points.rightEye + points.mouthCenter) / 3
        let e = max(points.eyeDistance, 4)
        var outline: [SIMD2<Float>] = []
        for k in 0..<16 {
            let angle = -Float.pi / 2 + Float(k) * Float.pi / 8
            let dir = SIMD2(Float(cosf(angle)), Float(sinf(angle)))
            var reach = 1.6 * e
            if let alpha {
                // Walk out until transparent, at most 3 eye distances.
                var r: Float = 0
                var last = r
                while r < 3 * e {
                    let p = centre + dir * r
                    let x = Int(p.x), y = Int(p.y)
                    guard x >= 0, y >= 0, x < width, y < height, alpha[y * width + x] > 24 else { break }
                    last = r
                    r += 1
                }
                reach = max(last, 0.8 * e)
            }
            let p = centre + dir * reach
            outline.append(SIMD2(min(max(p.x, 0), Float(width)), min(max(p.y, 0), Float(height))))
        }
        return outline
    }

    /// A drawn-open mouth measured in the picture: how far its opening reaches above and below the mouth's
    /// centre, in source pixels, along the centre's column. The face around the mouth is the colour two of three
    /// samples agree on (above the mouth, beside each corner); from the centre the walk goes on while the
    /// pixels are unlike that colour (a dark cavity, teeth, a tongue, the lips), then gives back a thin band
    /// next to the face (the lips or an outline). When the centre itself has the face's colour (an opening
    /// drawn as an outline only), the opening is the part inside the outline. A side that does not come back to
    /// the face within 0.8 mouth widths counts as 0. Transparent pixels are read over white.
    static func measuredOpeningSpan(points: CharacterPoints, bgr: [UInt8], alpha: [UInt8]?,
                                    width: Int, height: Int) -> (up: Float, down: Float) {
        guard let column = MouthColumn(points: points, bgr: bgr, alpha: alpha, width: width, height: height) else {
            return (0, 0)
        }
        let limit = column.limit
        let centreLikeFace = column.likeFace(0, 1)
        func reach(_ sign: Int) -> Float {
            var d = 0
            if centreLikeFace {
                while d < limit, column.likeFace(d + 1, sign) { d += 1 }
                let inside = d
                while d < limit, !column.likeFace(d + 1, sign) { d += 1 }
                return d < limit ? Float(inside) : 0
            }
            while d < limit, !column.likeFace(d + 1, sign) { d += 1 }
            guard d < limit else { return 0 }
            if d >= 3 {
                // The band next to the face, anti-aliased edge included: given back when it is thin.
                let band = column.colour(depth: d - 1, sign)
                var k = d
                while k > 0, k >= d || MouthColumn.distance(column.colour(depth: k, sign), band) <= 40 { k -= 1 }
                if Float(d - k) <= max(2, 0.35 * Float(d)) { d = k }
            }
            return Float(d)
        }
        return (reach(-1), reach(1))
    }

    /// The soft mask of what moves with the head: the outline filled, grown by a little and feathered.
    static func headMask(outline: [SIMD2<Float>], width: Int, height: Int, size: Float) -> [UInt8] {
        var mask = [UInt8](repeating: 0, count: width * height)
        let grow = max(2, 0.12 * size)
        let feather = max(2, 0.25 * size)
        var lo = SIMD2<Float>(Float(width), Float(height)), hi = SIMD2<Float>(0, 0)
        for p in outline { lo = pointwiseMin(lo, p); hi = pointwiseMax(hi, p) }
        let x0 = max(0, Int(lo.x - grow - feather)), x1 = min(width, Int(hi.x + grow + feather) + 1)
        let y0 = max(0, Int(lo.y - grow - feather)), y1 = min(height, Int(hi.y + grow + feather) + 1)
        guard x1 > x0, y1 > y0 else { return mask }
        let n = outline.count
        for y in y0..<y1 {
            for x in x0..<x1 {
                let p = SIMD2(Float(x) + 0.5, Float(y) + 0.5)
                var inside = false
                var nearest = Float.greatestFiniteMagnitude
                for i in 0..<n {
                    let a = outline[i], b = outline[(i + 1) % n]
                    if (a.y > p.y) != (b.y > p.y), p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
                    let ab = b - a, ap = p - a
                    let len = ab.x * ab.x + ab.y * ab.y
                    let t = len > 0 ? min(max((ap.x * ab.x + ap.y * ab.y) / len, 0), 1) : 0
                    let d = ap - ab * t
                    nearest = min(nearest, d.x * d.x + d.y * d.y)
                }
                let distance = inside ? -nearest.squareRoot() : nearest.squareRoot()
                let t = min(max((distance - grow) / feather, 0), 1)
                let v = 1 - t * t * (3 - 2 * t)
                mask[y * width + x] = UInt8((v * 255).rounded())
            }
        }
        return mask
    }

    /// HEAD mode's square: around the outline, a quarter larger, inside the frame.
    static func headBox(outline: [SIMD2<Float>], width: Int, height: Int) -> PixelRect {
        var lo = SIMD2<Float>(Float(width), Float(height)), hi = SIMD2<Float>(0, 0)
        for p in outline { lo = pointwiseMin(lo, p); hi = pointwiseMax(hi, p) }
        let side = min(Float(min(width, height)), max(hi.x - lo.x, hi.y - lo.y, 16) * 1.25)
        let s = max(16, Int(side.rounded(.down)))
        let cx = (lo.x + hi.x) / 2, cy = (lo.y + hi.y) / 2
        let x = min(max(Int((cx - Float(s) / 2).rounded()), 0), width - s)
        let y = min(max(Int((cy - Float(s) / 2).rounded()), 0), height - s)
        return PixelRect(x: max(0, x), y: max(0, y), width: min(s, width), height: min(s, height))
    }
}

#if canImport(Glibc)
import Glibc
#endif
