import Essence2Runtime

extension Avatar {
    /// This avatar on a `canvasWidth` x `canvasHeight` canvas: the portrait scaled (bilinear when enlarging,
    /// area averaging when shrinking) to the largest size that fits, centred, and the rest of the canvas filled
    /// by extending the portrait's edge colours outward, blending into a blur of them with distance (never
    /// black). Landmarks, mesh (z scaled too), face and mouth boxes, head box (kept square) and head mask (0
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

    /// The canvas: the scaled portrait at its offset; elsewhere its nearest edge pixel, blended with distance
    /// into a heavily blurred version of that extension.
    private static func fillCanvas(_ scaled: [UInt8], fitW: Int, fitH: Int, offsetX: Int, offsetY: Int,
                                   canvasW: Int, canvasH: Int) -> [UInt8] {
        var extended = [UInt8](repeating: 0, count: canvasW * canvasH * 3)
        extended.withUnsafeMutableBufferPointer { extended in
            scaled.withUnsafeBufferPointer { scaled in
                for y in 0..<canvasH {
                    let sy = min(max(y - offsetY, 0), fitH - 1)
                    for x in 0..<canvasW {
                        let sx = min(max(x - offsetX, 0), fitW - 1)
                        let src = (sy * fitW + sx) * 3, dst = (y * canvasW + x) * 3
                        extended[dst] = scaled[src]
                        extended[dst + 1] = scaled[src + 1]
                        extended[dst + 2] = scaled[src + 2]
                    }
                }
            }
        }
        if fitW == canvasW && fitH == canvasH { return extended }
        // The blur is computed at 1/8 size and enlarged again: the same look at a fraction of the cost.
        let radius = max(4, max(canvasW, canvasH) / 48)
        let smallW = max(1, canvasW / 8), smallH = max(1, canvasH / 8)
        var small = ImageResampler.resize(extended, width: canvasW, height: canvasH, channels: 3, to: smallW, smallH)
        for _ in 0..<3 {
            ImageFilters.boxBlur(&small, width: smallW, height: smallH, channels: 3, radius: max(1, radius / 8))
        }
        let blurred = ImageResampler.resize(small, width: smallW, height: smallH, channels: 3, to: canvasW, canvasH)
        let ramp = Float(2 * radius)
        var canvas = extended
        canvas.withUnsafeMutableBufferPointer { canvas in
            blurred.withUnsafeBufferPointer { blurred in
                for y in 0..<canvasH {
                    let dy = y < offsetY ? offsetY - y : max(0, y - (offsetY + fitH - 1))
                    for x in 0..<canvasW {
                        let dx = x < offsetX ? offsetX - x : max(0, x - (offsetX + fitW - 1))
                        guard dx > 0 || dy > 0 else { continue }
                        let t = min(1, Float(max(dx, dy)) / ramp)
                        let i = (y * canvasW + x) * 3
                        for c in i..<(i + 3) {
                            canvas[c] = UInt8(Float(canvas[c]) * (1 - t) + Float(blurred[c]) * t + 0.5)
                        }
                    }
                }
            }
        }
        return canvas
    }
}
