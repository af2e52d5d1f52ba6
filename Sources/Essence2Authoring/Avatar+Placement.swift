import Essence2Runtime

extension Avatar {
    /// This avatar on a `canvasWidth` x `canvasHeight` canvas: the portrait scaled (bilinear when enlarging,
    /// area averaging when shrinking) to the largest size that fits, centred, and the rest of the canvas filled
    /// by the portrait mirrored across its edges, blurred more with distance and blended far out into the mean
    /// colour of its border (no streaks, no visible edge, never black). Landmarks, mesh (z scaled too), face and mouth boxes, head box (kept square) and head mask (0
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

    /// The canvas: the scaled portrait at its offset; elsewhere the portrait mirrored across its nearest edge (so the
    /// background goes on with its own texture and colours, with no streaks), blurred more and more with distance
    /// from the edge, and blended far out into the mean colour of the portrait's border.
    private static func fillCanvas(_ scaled: [UInt8], fitW: Int, fitH: Int, offsetX: Int, offsetY: Int,
                                   canvasW: Int, canvasH: Int) -> [UInt8] {
        /// Index `i` reflected into 0..<n (mirror padding, repeating for canvases much larger than the portrait).
        func reflect(_ i: Int, _ n: Int) -> Int {
            guard n > 1 else { return 0 }
            let period = 2 * n
            var m = i % period
            if m < 0 { m += period }
            return m < n ? m : period - 1 - m
        }
        var mirrored = [UInt8](repeating: 0, count: canvasW * canvasH * 3)
        mirrored.withUnsafeMutableBufferPointer { mirrored in
            scaled.withUnsafeBufferPointer { scaled in
                for y in 0..<canvasH {
                    let sy = reflect(y - offsetY, fitH)
                    for x in 0..<canvasW {
                        let sx = reflect(x - offsetX, fitW)
                        let src = (sy * fitW + sx) * 3, dst = (y * canvasW + x) * 3
                        mirrored[dst] = scaled[src]
                        mirrored[dst + 1] = scaled[src + 1]
                        mirrored[dst + 2] = scaled[src + 2]
                    }
                }
            }
        }
        if fitW == canvasW && fitH == canvasH { return mirrored }
        // Two blurs of the mirror, computed at reduced size and enlarged again: a light one near the portrait's
        // edge (no visible seam) and a heavy one further out (no recognisable mirrored shapes).
        func blurred(radius: Int, reduce: Int) -> [UInt8] {
            let smallW = max(1, canvasW / reduce), smallH = max(1, canvasH / reduce)
            var small = ImageResampler.resize(mirrored, width: canvasW, height: canvasH, channels: 3, to: smallW, smallH)
            for _ in 0..<3 {
                ImageFilters.boxBlur(&small, width: smallW, height: smallH, channels: 3, radius: max(1, radius / reduce))
            }
            return ImageResampler.resize(small, width: smallW, height: smallH, channels: 3, to: canvasW, canvasH)
        }
        let side = max(canvasW, canvasH)
        let light = blurred(radius: max(2, side / 320), reduce: 2)
        let heavy = blurred(radius: max(8, side / 24), reduce: 8)
        // The mean colour of the portrait's border (its outermost 2% on each side).
        var mean = SIMD3<Float>(repeating: 0)
        var count: Float = 0
        let band = max(1, min(fitW, fitH) / 50)
        for y in 0..<fitH {
            for x in 0..<fitW where x < band || y < band || x >= fitW - band || y >= fitH - band {
                let i = (y * fitW + x) * 3
                mean += SIMD3(Float(scaled[i]), Float(scaled[i + 1]), Float(scaled[i + 2]))
                count += 1
            }
        }
        mean /= max(count, 1)
        let margin = Float(max(offsetX, offsetY, canvasW - offsetX - fitW, canvasH - offsetY - fitH, 1))
        let seam = Float(max(8, side / 40))
        var canvas = mirrored
        canvas.withUnsafeMutableBufferPointer { canvas in
            light.withUnsafeBufferPointer { light in
                heavy.withUnsafeBufferPointer { heavy in
                    for y in 0..<canvasH {
                        let dy = y < offsetY ? offsetY - y : max(0, y - (offsetY + fitH - 1))
                        for x in 0..<canvasW {
                            let dx = x < offsetX ? offsetX - x : max(0, x - (offsetX + fitW - 1))
                            guard dx > 0 || dy > 0 else { continue }
                            let distance = Float(max(dx, dy))
                            // Mirror -> light blur over the first few pixels, then -> heavy blur, then -> mean.
                            let a = min(1, distance / seam)
                            let b = min(1, max(0, distance - seam / 2) / (2 * seam))
                            let c = min(1, max(0, distance / margin - 0.5) * 2)
                            let i = (y * canvasW + x) * 3
                            for k in 0..<3 {
                                let near = Float(canvas[i + k]) * (1 - a) + Float(light[i + k]) * a
                                let far = near * (1 - b) + Float(heavy[i + k]) * b
                                let value = far * (1 - c * 0.6) + mean[k] * c * 0.6
                                canvas[i + k] = UInt8(min(255, max(0, value + 0.5)))
                            }
                        }
                    }
                }
            }
        }
        return canvas
    }
}
