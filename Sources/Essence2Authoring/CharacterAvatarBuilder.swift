import Essence2Runtime

/// Builds a character avatar (Expression 2) from a picture and its points: the character scaled into the
/// frame (416x720 by default) over a backdrop, the rig in frame pixels, and the soft mask of the head.
package enum CharacterAvatarBuilder {
    /// Expression 2's default frame size.
    package static let defaultSize = (width: 416, height: 720)

    /// What goes behind the character.
    package enum Backdrop: Sendable, Equatable {
        /// A vertical gradient made from the character's own colours (or, for an opaque picture, its border's).
        case fromPicture
        /// One colour, B,G,R.
        case colour(SIMD3<UInt8>)
        /// A picture (B,G,R), scaled to cover the frame.
        case picture(bgr: [UInt8], width: Int, height: Int)
    }

    /// The avatar; throws when the points or picture do not make one (the reason says which).
    package static func build(
        name: String, bgr: [UInt8], alpha: [UInt8]?, width: Int, height: Int, points: CharacterPoints,
        size: (width: Int, height: Int) = defaultSize, backdrop: Backdrop = .fromPicture, seed: UInt64 = 0x5EED
    ) throws(AvatarFileError) -> Avatar {
        guard width >= 8, height >= 8 else {
            throw AvatarFileError(.corrupt, "the picture is \(width)x\(height) pixels; a character needs at least 8x8")
        }
        guard bgr.count == width * height * 3, alpha.map({ $0.count == width * height }) ?? true else {
            throw AvatarFileError(.corrupt, "the picture's pixels do not match its size \(width)x\(height)")
        }
        let outW = size.width, outH = size.height
        // The character's extent: its opaque part, or the whole picture.
        var lo = SIMD2<Int>(0, 0), hi = SIMD2<Int>(width, height)
        if let alpha {
            var minX = width, minY = height, maxX = -1, maxY = -1
            for y in 0..<height {
                for x in 0..<width where alpha[y * width + x] > 24 {
                    minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
                }
            }
            guard maxX >= minX else { throw AvatarFileError(.corrupt, "the picture is fully transparent") }
            lo = SIMD2(minX, minY)
            hi = SIMD2(maxX + 1, maxY + 1)
        }
        let extentW = Float(hi.x - lo.x), extentH = Float(hi.y - lo.y)
        let opaque = alpha == nil
        // A transparent character fills 90% of the width or 78% of the height; an opaque picture fills the
        // width, or the height, whichever it reaches first.
        let scale = opaque ? min(Float(outW) / extentW, Float(outH) / extentH)
            : min(0.9 * Float(outW) / extentW, 0.78 * Float(outH) / extentH)
        let scaledW = max(1, Int((Float(width) * scale).rounded())), scaledH = max(1, Int((Float(height) * scale).rounded()))
        let sx = Float(scaledW) / Float(width), sy = Float(scaledH) / Float(height)
        let s = (sx + sy) / 2
        // Centre the extent; a transparent head sits a little above the middle.
        let centre = SIMD2(Float(lo.x + hi.x) / 2 * s, Float(lo.y + hi.y) / 2 * s)
        let target = SIMD2(Float(outW) / 2, opaque ? Float(outH) / 2 : 0.46 * Float(outH))
        let offset = SIMD2((target.x - centre.x).rounded(), (target.y - centre.y).rounded())
        let ox = Int(offset.x), oy = Int(offset.y)

        // The backdrop.
        var frame = backdropPixels(backdrop, bgr: bgr, alpha: alpha, width: width, height: height, outW: outW, outH: outH)
        // The character, resampled with premultiplied opacity, composited over the backdrop.
        var layer = [UInt8](repeating: 0, count: width * height * 4)
        for i in 0..<(width * height) {
            let a = Int(alpha?[i] ?? 255)
            for c in 0..<3 {
                // bgr holds the picture composited onto white: take the white back out.
                let composite = Int(bgr[3 * i + c])
                let premultiplied = a == 255 ? composite : max(0, composite - (255 - a))
                layer[4 * i + c] = UInt8(min(premultiplied, a))
            }
            layer[4 * i + 3] = UInt8(a)
        }
        let scaled = ImageResampler.resize(layer, width: width, height: height, channels: 4, to: scaledW, scaledH)
        let feather = opaque ? max(2, min(scaledW, scaledH) / 60) : 0
        for y in 0..<scaledH {
            let fy = y + oy
            guard fy >= 0, fy < outH else { continue }
            for x in 0..<scaledW {
                let fx = x + ox
                guard fx >= 0, fx < outW else { continue }
                let i = 4 * (y * scaledW + x), o = 3 * (fy * outW + fx)
                var a = Float(scaled[i + 3]) / 255
                var k: Float = 1
                if feather > 0 {
                    let edge = min(x, y, scaledW - 1 - x, scaledH - 1 - y)
                    if edge < feather { k = Float(edge + 1) / Float(feather + 1) }
                }
                a *= k
                for c in 0..<3 {
                    let v = Float(scaled[i + c]) * k + Float(frame[o + c]) * (1 - a)
                    frame[o + c] = UInt8(min(max(v.rounded(), 0), 255))
                }
            }
        }

        // The rig, in frame pixels.
        func f(_ p: SIMD2<Float>) -> SIMD2<Float> { p * s + offset }
        let eyeDistance = max(points.eyeDistance, 2)
        let defaultRadius = 0.16 * eyeDistance
        var outline = points.outline.map(f)
        if outline.count < 3 {
            outline = defaultOutline(points: points, alpha: alpha, width: width, height: height, lo: lo, hi: hi).map(f)
        }
        let clampPoint = { (p: SIMD2<Float>) -> SIMD2<Float> in
            SIMD2(min(max(p.x, 0), Float(outW)), min(max(p.y, 0), Float(outH)))
        }
        outline = outline.map(clampPoint)
        // A drawn-open mouth closes about its centre line: without a given opening, the opening is measured
        // and the centre put at its middle (a found centre on the edge of the cavity would leave half of it).
        var mouthCenter = points.mouthCenter
        var opening: Float = 0
        if points.mouth == .open {
            if let given = points.mouthOpening {
                opening = given * s
            } else {
                let span = measuredOpeningSpan(points: points, bgr: bgr, alpha: alpha, width: width, height: height)
                let mouthWidth = max(points.mouthRight.x - points.mouthLeft.x, 2)
                opening = min(max(span.up + span.down + 1, 2), 0.8 * mouthWidth) * s
                if span.up + span.down > 0 { mouthCenter.y += (span.down - span.up) / 2 }
            }
        }
        // An eye radius is checked in the picture's own pixels, where it was given: at most a quarter of the
        // frame's larger side once scaled (the rule every rig keeps).
        let radiusLimit = Float(max(outW, outH)) / 4 / s
        for (name, r) in [("left_eye_radius", points.leftEyeRadius), ("right_eye_radius", points.rightEyeRadius)] {
            if let r, !(r.isFinite && r <= radiusLimit) {
                throw AvatarFileError(.corrupt, "\(name) \(r) is larger than this picture allows: at most \(Int(radiusLimit)) of its pixels (a quarter of the frame)")
            }
        }
        let rig = CharacterRig(
            leftEye: clampPoint(f(points.leftEye)), rightEye: clampPoint(f(points.rightEye)),
            leftEyeRadius: max(0.5, (points.leftEyeRadius ?? defaultRadius) * s),
            rightEyeRadius: max(0.5, (points.rightEyeRadius ?? defaultRadius) * s),
            mouthLeft: clampPoint(f(points.mouthLeft)), mouthRight: clampPoint(f(points.mouthRight)),
            mouthCenter: clampPoint(f(mouthCenter)), leftBrow: points.leftBrow.map(f).map(clampPoint),
            rightBrow: points.rightBrow.map(f).map(clampPoint), mouth: points.mouth,
            mouthOpening: min(opening, Float(max(outW, outH)) / 4), outline: outline,
            sourceWidth: width, sourceHeight: height, sourceScale: s, sourceOffset: offset)
        let mask = headMask(outline: outline, width: outW, height: outH, size: eyeDistance * s)
        let box = headBox(outline: outline, width: outW, height: outH)
        let avatar = Avatar(name: name, width: outW, height: outH, pixels: frame, character: rig, headBox: box,
                            headMask: mask, seed: seed)
        if let problem = avatar.validationProblem() { throw AvatarFileError(.corrupt, "the character does not fit: \(problem)") }
        return avatar
    }
}
