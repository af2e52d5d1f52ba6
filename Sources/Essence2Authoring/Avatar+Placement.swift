import Essence2Runtime

extension Avatar {
    /// This avatar on a `canvasWidth` x `canvasHeight` canvas: the portrait scaled (bilinear when enlarging,
    /// area averaging when shrinking) to the largest size that fits, centred, and the rest of the canvas filled
    /// by a smooth extension of the colours along the portrait's border (`fillCanvas`: no copies of the
    /// picture's structures, no visible edge, never black). Landmarks, mesh (z scaled too), face and mouth boxes, head box (kept square) and head mask (0
    /// outside the portrait) are mapped to the canvas. Canvas sides are clamped to 1...16384 and the area to
    /// 8192 x 8192 pixels; the same size returns the avatar unchanged.
    package func placed(onCanvasWidth canvasWidth: Int, height canvasHeight: Int) -> Avatar {
        typealias F = AvatarFileFormat
        var canvasW = min(max(canvasWidth, 1), F.maxSide)
        var canvasH = min(max(canvasHeight, 1), F.maxSide)
        if canvasW * canvasH > F.maxPixels {
            let shrink = (Double(F.maxPixels) / Double(canvasW * canvasH)).squareRoot()
            canvasW = max(1, Int(Double(canvasW) * shrink))
            canvasH = max(1, Int(Double(canvasH) * shrink))
        }
        guard canvasW != width || canvasH != height else { return self }
        guard width > 0, height > 0, pixels.count == width * height * 3 else { return self }

        let scale = min(Double(canvasW) / Double(width), Double(canvasH) / Double(height))
        let fitW = min(canvasW, max(1, Int((Double(width) * scale).rounded())))
        let fitH = min(canvasH, max(1, Int((Double(height) * scale).rounded())))
        let offsetX = (canvasW - fitW) / 2, offsetY = (canvasH - fitH) / 2
        let sx = Float(fitW) / Float(width), sy = Float(fitH) / Float(height)

        let scaled = ImageResampler.resize(pixels, width: width, height: height, channels: 3, to: fitW, fitH)
        let canvas = Self.fillCanvas(scaled, fitW: fitW, fitH: fitH, offsetX: offsetX, offsetY: offsetY,
                                     canvasW: canvasW, canvasH: canvasH)
        var mask: [UInt8] = []
        if headMask.count == width * height {
            let scaledMask = ImageResampler.resize(headMask, width: width, height: height, channels: 1, to: fitW, fitH)
            mask = [UInt8](repeating: 0, count: canvasW * canvasH)
            for y in 0..<fitH {
                let src = y * fitW, dst = (y + offsetY) * canvasW + offsetX
                mask[dst..<(dst + fitW)] = scaledMask[src..<(src + fitW)]
            }
        }

        let maxX = Float(canvasW), maxY = Float(canvasH)
        let ox = Float(offsetX), oy = Float(offsetY)
        func map(_ p: SIMD2<Float>) -> SIMD2<Float> {
            SIMD2(min(max(p.x * sx + ox, 0), maxX), min(max(p.y * sy + oy, 0), maxY))
        }
        // Float to Int without trapping on values a validated avatar never has (huge, infinite, NaN).
        func pixel(_ value: Float, _ rule: FloatingPointRoundingRule) -> Int {
            value.isNaN ? 0 : Int(min(max(value, -1_000_000), 1_000_000).rounded(rule))
        }
        func mapBox(_ box: PixelRect) -> PixelRect {
            let x0 = max(0, pixel(Float(box.x) * sx + ox, .down))
            let y0 = max(0, pixel(Float(box.y) * sy + oy, .down))
            let x1 = min(canvasW, pixel(Float(box.maxX) * sx + ox, .up))
            let y1 = min(canvasH, pixel(Float(box.maxY) * sy + oy, .up))
            return PixelRect(x: min(x0, canvasW - 1), y: min(y0, canvasH - 1), width: max(1, x1 - x0), height: max(1, y1 - y0))
        }
        var marks = landmarks
        marks.points = landmarks.points.mapValues(map)
        marks.lipsOuter = landmarks.lipsOuter.map(map)
        marks.lipsInner = landmarks.lipsInner.map(map)
        marks.faceBox = mapBox(landmarks.faceBox)
        marks.mouthBox = mapBox(landmarks.mouthBox)
        let depthScale = (sx + sy) / 2
        let points = mesh.points.map { p -> SIMD3<Float> in
            let q = map(SIMD2(p.x, p.y))
            return SIMD3(q.x, q.y, p.z * depthScale)
        }

        // The head box stays square: same centre, side scaled, kept inside the canvas.
        let side = max(1, min(pixel(Float(headBox.width) * min(sx, sy), .toNearestOrAwayFromZero), canvasW, canvasH))
        let centreX = (Float(headBox.x) + Float(headBox.width) / 2) * sx + ox
        let centreY = (Float(headBox.y) + Float(headBox.height) / 2) * sy + oy
        let boxX = min(max(pixel(centreX - Float(side) / 2, .toNearestOrAwayFromZero), 0), canvasW - side)
        let boxY = min(max(pixel(centreY - Float(side) / 2, .toNearestOrAwayFromZero), 0), canvasH - side)

        return Avatar(name: name, width: canvasW, height: canvasH, pixels: canvas, landmarks: marks,
                      mesh: FaceMesh(points: points, triangles: mesh.triangles),
                      headBox: PixelRect(x: boxX, y: boxY, width: side, height: side), headMask: mask, seed: seed)
    }

    /// The canvas: the scaled portrait at its offset; elsewhere a smooth extension of the colours along the
    /// portrait's border. Each margin pixel takes the colour of the border nearest it (the mean of its outermost
    /// 1 % there), averaged along the border: right at the edge over a few pixels (no visible seam), then within
    /// a short seam (1/60 of the canvas' longer side) over a quarter of the border's length, smoothed twice, so the
    /// border's detail fades into broad gradients and nothing of the picture's structures (hair, shoulders, a
    /// flag, a badge) is copied or drawn out as rays; far out it blends towards the border's mean colour. In a
    /// corner beyond both edges the two nearest borders are blended by distance.
    private static func fillCanvas(_ scaled: [UInt8], fitW: Int, fitH: Int, offsetX: Int, offsetY: Int,
                                   canvasW: Int, canvasH: Int) -> [UInt8] {
        var canvas = [UInt8](repeating: 0, count: canvasW * canvasH * 3)
        for y in 0..<fitH {
            let src = y * fitW * 3, dst = ((y + offsetY) * canvasW + offsetX) * 3
            canvas[dst..<(dst + fitW * 3)] = scaled[src..<(src + fitW * 3)]
        }
        if fitW == canvasW && fitH == canvasH { return canvas }
        let band = max(1, min(fitW, fitH) / 100)
        /// Prefix sums (count + 1 entries) of the mean colour of `band` pixels inward from the border at each
        /// position along it; `pixel(i, k)` is the k-th pixel inward at position i.
        func profile(_ count: Int, _ pixel: (Int, Int) -> Int) -> [SIMD3<Float>] {
            var sums = [SIMD3<Float>](repeating: .zero, count: count + 1)
            for i in 0..<count {
                var c = SIMD3<Float>.zero
                for k in 0..<band {
                    let p = pixel(i, k)
                    c += SIMD3(Float(scaled[p]), Float(scaled[p + 1]), Float(scaled[p + 2]))
                }
                sums[i + 1] = sums[i] + c / Float(band)
            }
            return sums
        }
        let top = profile(fitW) { x, k in (k * fitW + x) * 3 }
        let bottom = profile(fitW) { x, k in ((fitH - 1 - k) * fitW + x) * 3 }
        let left = profile(fitH) { y, k in (y * fitW + k) * 3 }
        let right = profile(fitH) { y, k in (y * fitW + fitW - 1 - k) * 3 }
        let mean = (top[fitW] + bottom[fitW]) / Float(2 * fitW) * 0.5 + (left[fitH] + right[fitH]) / Float(2 * fitH) * 0.5
        /// The border's colour at position i averaged over i - r ... i + r (the part inside the border).
        func average(_ sums: [SIMD3<Float>], _ i: Int, _ r: Int) -> SIMD3<Float> {
            let n = sums.count - 1
            let c = min(max(i, 0), n - 1)
            let lo = max(0, c - r), hi = min(n, c + r + 1)
            return (sums[hi] - sums[lo]) / Float(hi - lo)
        }
        /// The border's colours at every position, averaged twice over 2 r + 1 positions (a triangle window).
        func broad(_ sums: [SIMD3<Float>], _ r: Int) -> [SIMD3<Float>] {
            let n = sums.count - 1
            let once = (0..<n).map { average(sums, $0, r) }
            var again = [SIMD3<Float>](repeating: .zero, count: n + 1)
            for i in 0..<n { again[i + 1] = again[i] + once[i] }
            return (0..<n).map { average(again, $0, r) }
        }
        let side = max(canvasW, canvasH)
        let broadTop = broad(top, max(1, fitW / 8)), broadBottom = broad(bottom, max(1, fitW / 8))
        let broadLeft = broad(left, max(1, fitH / 8)), broadRight = broad(right, max(1, fitH / 8))
        let seam = Float(max(8, side / 60))
        let margin = Float(max(offsetX, offsetY, canvasW - offsetX - fitW, canvasH - offsetY - fitH, 1))
        for y in 0..<canvasH {
            let above = offsetY - y, below = y - (offsetY + fitH - 1)
            let dy = max(above, below, 0)
            for x in 0..<canvasW {
                let before = offsetX - x, after = x - (offsetX + fitW - 1)
                let dx = max(before, after, 0)
                guard dx > 0 || dy > 0 else { continue }
                let d = dx + dy
                let radius = band + d
                let far = min(1, Float(d) / seam)
                let s = far * far * (3 - 2 * far)
                var colour = SIMD3<Float>.zero
                if dy > 0 {
                    let i = min(max(x - offsetX, 0), fitW - 1)
                    let near = average(above > 0 ? top : bottom, i, radius)
                    let wide = above > 0 ? broadTop[i] : broadBottom[i]
                    colour += (near + (wide - near) * s) * (Float(dy) / Float(d))
                }
                if dx > 0 {
                    let i = min(max(y - offsetY, 0), fitH - 1)
                    let near = average(before > 0 ? left : right, i, radius)
                    let wide = before > 0 ? broadLeft[i] : broadRight[i]
                    colour += (near + (wide - near) * s) * (Float(dx) / Float(d))
                }
                let w = min(1, Float(d) / margin)
                colour += (mean - colour) * (0.5 * w * w)
                let i = (y * canvasW + x) * 3
                canvas[i] = UInt8(min(255, max(0, colour.x + 0.5)))
                canvas[i + 1] = UInt8(min(255, max(0, colour.y + 0.5)))
                canvas[i + 2] = UInt8(min(255, max(0, colour.z + 0.5)))
            }
        }
        return canvas
    }
}
