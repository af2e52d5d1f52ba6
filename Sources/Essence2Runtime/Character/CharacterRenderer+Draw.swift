extension CharacterRenderer {
    /// Draws `rows` x `columns` (image coordinates) of one frame into `o`, laid out as `view`.
    /// `active`: where this frame's features draw or move anything (drawn in full); `stale`: where the last frame
    /// in this buffer's did (every pixel there is drawn again); elsewhere a pixel moves with the head only, and one
    /// that does not move, or sits deeper than `kept` pixels inside a flat fill (this frame's and the buffer's
    /// last frame's head reach), already holds the picture.
    func draw(_ f: CharacterFrame, rows: Range<Int>, columns: Range<Int>, view: PixelRect, active: PixelRect,
              stale: PixelRect?, kept: Int, into o: UnsafeMutablePointer<UInt8>) {
        let rig = self.rig
        let maxX = Float(width - 1) - 0.001, maxY = Float(height - 1) - 0.001
        // Where this frame's mouth moves anything: the lens's width (or, while the mouth spreads or rounds, the
        // reach of that), from the upper lip's pull above to the jaw's below.
        let widthMatters = abs(f.widthScale - 1) > 0.004
        let reachX = widthMatters ? 1.75 * halfWidth : halfWidth * max(f.widthScale, 1) + 1
        let bendReach = abs(bend) + 1
        let reachUp = max(max(f.upper, f.drawnUpper) + 1.15 * halfWidth, widthMatters ? 1.35 * halfWidth : 0) + bendReach
        let reachDown = max(f.lower, f.drawnLower) + max(jawReach, widthMatters ? 1.35 * halfWidth : 0) + bendReach
        let lineWidth = max(1.2, 0.07 * halfWidth)
        let brows = [rig.leftBrow, rig.rightBrow].compactMap { $0 }
        let browRadius = max(0.3 * rig.eyeDistance, 3)
        let leftEye = eyes[0], rightEye = eyes[1]
        let leftCloses = leftEye.closes, rightCloses = rightEye.closes
        let lineAlphaScale = rig.mouth == .absent ? smoothstep(0.5, 3, f.upper + f.lower) : 1
        let row = width * 3
        for y in rows {
            let out = o + ((y - view.y) * view.width - view.x) * 3
            let weights = weight + y * width
            let parallaxWeights = parallaxWeight + y * width
            let flats = flatReach + y * width
            let activeRow = y >= active.y && y < active.maxY
            let staleRow = stale.map { y >= $0.y && y < $0.maxY } ?? false
            for x in columns {
                let hb = weights[x]
                let inFeatures = activeRow && x >= active.x && x < active.maxX
                if !inFeatures {
                    // Only the head's motion here; where it does not move, or moves within a flat fill, the picture.
                    if hb == 0 || Int(flats[x]) > kept {
                        if staleRow, let stale, x >= stale.x, x < stale.maxX {
                            let src = base + (y * width + x) * 3, dst = out + x * 3
                            dst[0] = src[0]; dst[1] = src[1]; dst[2] = src[2]
                        }
                        continue
                    }
                    let q = headSource(f, x: x, y: y, weight: hb, parallaxWeight: parallaxWeights[x])
                    sample(q.x, q.y, maxX: maxX, maxY: maxY, row: row, into: out + x * 3)
                    continue
                }
                var q = hb == 0 ? SIMD2(Float(x), Float(y))
                    : headSource(f, x: x, y: y, weight: hb, parallaxWeight: parallaxWeights[x])
                // Lids, in the head's own coordinates (before the brows and mouth move anything).
                var overlay = SIMD3<Float>(0, 0, 0)
                var overlayAlpha: Float = 0
                if f.blink > 0.02 {
                    // Each eye passed by reference (a copy per pixel would retain its arrays).
                    if leftCloses { lid(leftEye, at: q, blink: f.blink, maxX: maxX, maxY: maxY, row: row,
                                        overlay: &overlay, alpha: &overlayAlpha) }
                    if rightCloses { lid(rightEye, at: q, blink: f.blink, maxX: maxX, maxY: maxY, row: row,
                                         overlay: &overlay, alpha: &overlayAlpha) }
                }
                // Brows lift: what is below comes up.
                if f.browLift > 0.05 {
                    for b in brows {
                        let e = (q - b) / browRadius
                        let r2 = e.x * e.x * 0.6 + e.y * e.y
                        if r2 < 1.6 { q.y += f.browLift * smoothstep(1.6, 0.25, r2) }
                    }
                }
                // The mouth, inside the head only: its pull fades with the head's mask, so nothing outside the
                // character moves or is drawn.
                var interior: SIMD3<Float>? = nil
                var lineAlpha: Float = 0
                if f.mouthMoves, hb > 0 {
                    let still = q
                    let rel = q - mouthMid
                    let u = rel.x * mouthAxis.x + rel.y * mouthAxis.y
                    let along = rel.x * mouthNormal.x + rel.y * mouthNormal.y
                    if abs(u) < reachX, along > -reachUp, along < reachDown {
                        let tn = u / halfWidth
                        let lineV = bend * max(0, 1 - tn * tn)
                        let v = along - lineV
                        // Narrower or wider about the centre, near the mouth only.
                        let near = smoothstep(1.7, 1.05, abs(tn)) * smoothstep(1.3 * halfWidth, 0.5 * halfWidth, abs(v))
                        let us = u + (u / f.widthScale - u) * near
                        let t = u / (halfWidth * f.widthScale)
                        let g = max(0, 1 - t * t).squareRoot()
                        let t0 = us / halfWidth
                        let g0 = max(0, 1 - t0 * t0).squareRoot()
                        let up = f.upper * g, lo = f.lower * g
                        let up0 = f.drawnUpper * g0, lo0 = f.drawnLower * g0
                        var vs = v
                        if v > -up, v < lo, up + lo > 0.4 {
                            if up0 + lo0 > 0.5 {
                                vs = -up0 + (v + up) / (up + lo) * (up0 + lo0)  // the picture's own opening
                            } else {
                                interior = interiorColour(f, t: t, depth: (v + up) / (up + lo), opening: up + lo)
                            }
                            lineAlpha = clamp01(1 - min(v + up, lo - v) / lineWidth)
                        } else if v >= lo {
                            let fall = 1 - smoothstep(0, 1, (v - lo) / jawReach)
                            vs = v - (lo - lo0) * fall
                            lineAlpha = clamp01(1 - (v - lo) / (0.6 * lineWidth)) * (up + lo > 0.4 ? 1 : 0)
                        } else {
                            let fall = 1 - smoothstep(0, 1, (-up - v) / (1.1 * halfWidth))
                            vs = v + (up - up0) * fall
                            lineAlpha = clamp01(1 - (-up - v) / (0.6 * lineWidth)) * (up + lo > 0.4 ? 1 : 0)
                        }
                        if up0 + lo0 > 0.5 { lineAlpha = 0 }  // a drawn mouth keeps its own lips
                        lineAlpha *= lineAlphaScale * smoothstep(1.02, 0.8, abs(t))
                        let tsn = us / halfWidth
                        let lineVs = bend * max(0, 1 - tsn * tsn)
                        q = mouthMid + mouthAxis * us + mouthNormal * (vs + lineVs)
                        if hb < 255 {
                            let h = Float(hb) * (1 / 255)
                            q = still + (q - still) * h
                            lineAlpha *= h
                            if hb < 128 { interior = nil }
                        }
                    }
                }
                // Sample the picture (bilinear), then lay the drawn parts over it.
                if interior == nil, lineAlpha <= 0, overlayAlpha <= 0 {
                    sample(q.x, q.y, maxX: maxX, maxY: maxY, row: row, into: out + x * 3)
                    continue
                }
                var c: SIMD3<Float>
                if let interior {
                    c = interior
                } else {
                    c = bilinear(q, maxX: maxX, maxY: maxY, row: row)
                }
                if lineAlpha > 0 { c += (palette.line - c) * lineAlpha }
                if overlayAlpha > 0 { c += (overlay - c) * overlayAlpha }
                let dst = out + x * 3
                dst[0] = UInt8(min(max(c.x + 0.5, 0), 255))
                dst[1] = UInt8(min(max(c.y + 0.5, 0), 255))
                dst[2] = UInt8(min(max(c.z + 0.5, 0), 255))
            }
        }
    }

    /// Where the head's motion (roll about the pivot, shift, and the features' parallax) takes the frame pixel
    /// (`x`, `y`) from in the picture, for its head weight and parallax weight (0 ... 255): one formula for the
    /// pixels the features move and those they do not.
    @inline(__always)
    func headSource(_ f: CharacterFrame, x: Int, y: Int, weight: UInt8, parallaxWeight: UInt8) -> SIMD2<Float> {
        let h = Float(weight) * (1 / 255)
        let dx = Float(x) - pivot.x - f.shift.x, dy = Float(y) - pivot.y - f.shift.y
        let pw = Float(parallaxWeight) * (1 / 255)
        let qx = Float(x) + (pivot.x + f.cosRoll * dx + f.sinRoll * dy - Float(x)) * h - f.parallax.x * pw
        let qy = Float(y) + (pivot.y - f.sinRoll * dx + f.cosRoll * dy - Float(y)) * h - f.parallax.y * pw
        return SIMD2(qx, qy)
    }

    /// The lid of `eye` at head point `q` for closure `blink`: its colour and alpha into `overlay` and `alpha`
    /// where it covers anything. The lid's skin is the picture just above the eye, mirrored, where that is of
    /// the lid's colour (fur, shading, a sketch's strokes), else the lid's colour; its line the eye's own.
    @inline(__always)
    func lid(_ eye: borrowing CharacterEye, at q: SIMD2<Float>, blink: Float, maxX: Float, maxY: Float, row: Int,
             overlay: inout SIMD3<Float>, alpha: inout Float) {
        let (cover, line) = eye.lid(at: q, blink: blink)
        guard cover > 0 || line > 0 else { return }
        let a = max(cover, line)
        var skin = eye.lid
        if let m = eye.lidSource(at: q) {
            let t = bilinear(m, maxX: maxX, maxY: maxY, row: row)
            let d = t - eye.lid
            if abs(d.x) + abs(d.y) + abs(d.z) < 45 { skin = t }
        }
        overlay = (skin * cover * (1 - line) + eye.line * line) / a
        alpha = a
    }

    /// The picture at `q` (clamped to the frame), bilinear, as floats (B, G, R).
    @inline(__always)
    func bilinear(_ q: SIMD2<Float>, maxX: Float, maxY: Float, row: Int) -> SIMD3<Float> {
        let sx = min(max(q.x, 0), maxX), sy = min(max(q.y, 0), maxY)
        let ix = Int(sx), iy = Int(sy)
        let fx = sx - Float(ix), fy = sy - Float(iy)
        let p = base + (iy * width + ix) * 3
        let w00 = (1 - fx) * (1 - fy), w10 = fx * (1 - fy), w01 = (1 - fx) * fy, w11 = fx * fy
        return SIMD3(
            Float(p[0]) * w00 + Float(p[3]) * w10 + Float(p[row]) * w01 + Float(p[row + 3]) * w11,
            Float(p[1]) * w00 + Float(p[4]) * w10 + Float(p[row + 1]) * w01 + Float(p[row + 4]) * w11,
            Float(p[2]) * w00 + Float(p[5]) * w10 + Float(p[row + 2]) * w01 + Float(p[row + 5]) * w11)
    }

    /// The picture at (`qx`, `qy`), bilinear in 8-bit fixed point, into `dst` (B, G, R).
    @inline(__always)
    func sample(_ qx: Float, _ qy: Float, maxX: Float, maxY: Float, row: Int, into dst: UnsafeMutablePointer<UInt8>) {
        let sx = min(max(qx, 0), maxX), sy = min(max(qy, 0), maxY)
        let fxFixed = Int(sx * 256), fyFixed = Int(sy * 256)
        let ix = fxFixed >> 8, iy = fyFixed >> 8
        let fx = fxFixed & 255, fy = fyFixed & 255
        let p = base + (iy &* width &+ ix) &* 3
        let w00 = (256 &- fx) &* (256 &- fy), w10 = fx &* (256 &- fy), w01 = (256 &- fx) &* fy, w11 = fx &* fy
        for c in 0..<3 {
            let v = Int(p[c]) &* w00 &+ Int(p[c &+ 3]) &* w10 &+ Int(p[row &+ c]) &* w01 &+ Int(p[row &+ c &+ 3]) &* w11
            dst[c] = UInt8(truncatingIfNeeded: (v &+ 32768) >> 16)
        }
    }

    /// The drawn interior at `t` across (-1 ... 1) and `depth` down (0 upper lip ... 1 lower lip): teeth under
    /// the upper lip on human-like faces, the tongue at the bottom (higher as its tip rises), the cavity darker
    /// at the back.
    func interiorColour(_ f: CharacterFrame, t: Float, depth: Float, opening: Float) -> SIMD3<Float> {
        let shade = 0.75 + 0.35 * abs(depth - 0.45)
        var c = palette.cavity * shade
        let tongueTop = 0.72 - 0.3 * f.tongue
        let tx = t / 0.72, ty = (depth - 1.02) / max(1.02 - tongueTop, 0.05)
        let tongueAlpha = clamp01((1 - (tx * tx + ty * ty)) * 6)
        c += (palette.tongue * (0.85 + 0.15 * (1 - depth)) - c) * tongueAlpha
        if let teeth = palette.teeth, opening > 3 {
            let band = min(0.26, 2.5 / max(opening, 1) + 0.12)
            let a = clamp01((band - depth) * opening * 0.8) * smoothstep(0.95, 0.7, abs(t))
            c += (teeth - c) * a
        }
        return c
    }
}
