/// Draws frames of a character avatar (Expression 2) from its frame picture and rig, in one pass over the head
/// region: each output pixel is traced back through the head's motion (roll, sway, nod, and a parallax of the
/// inner features on turns), the brows' lift and the mouth's opening to a point of the picture, sampled
/// bilinearly; where the mouth is open and the picture has no opening of its own, the interior is drawn in
/// the character's palette (a dark cavity, a tongue, teeth only on human-like faces), outlined in its own line
/// colour; lids close over the eyes in the colour around each eye.
///
/// Only the head region is redrawn; the rest of the frame is the picture. Not thread-safe: one per render
/// thread (bands of one frame are drawn on the shared `BandPool`).
package final class CharacterRenderer: FrameDrawing {
    package let width: Int
    package let height: Int
    let headBox: PixelRect
    let rig: CharacterRig
    let palette: CharacterPalette
    /// The picture (B,G,R) and the head-motion weight per pixel (0 still ... 255 moves with the head).
    let base: UnsafeMutablePointer<UInt8>
    let weight: UnsafeMutablePointer<UInt8>
    /// Per pixel, how much of the features' parallax it takes (the head weight, fading out from the features'
    /// centre), 0 ... 255.
    let parallaxWeight: UnsafeMutablePointer<UInt8>
    /// Per pixel, how far (in pixels, on the chessboard) the picture stays one flat colour around it, up to 255:
    /// a pixel moved by less than this samples its own colour, so it need not be drawn at all (flat fills of
    /// cartoons), and a photograph's pixels, never flat, are all drawn.
    let flatReach: UnsafeMutablePointer<UInt8>
    /// The farthest a head pixel is from the pivot (for the bound on how far the head's motion moves one).
    let pivotReach: Float
    /// Each eye (left, right) as the picture draws it.
    let eyes: [CharacterEye]
    /// Where frames can differ from the picture.
    let region: PixelRect
    /// The head's pivot (the bottom centre of its outline) and size (its larger side), in pixels.
    let pivot: SIMD2<Float>
    let headSize: Float
    /// Centre of the inner features (eyes and mouth), and the radius over which their parallax fades.
    let featureCentre: SIMD2<Float>
    let featureRadius: Float
    /// The mouth's frame: centre of the corners, unit axis along them, unit normal pointing down, half width,
    /// and how far the lip line's centre lies below the corners' chord.
    let mouthMid: SIMD2<Float>
    let mouthAxis: SIMD2<Float>
    let mouthNormal: SIMD2<Float>
    let halfWidth: Float
    let bend: Float
    /// How far below the lip line the jaw's pull fades out (short of the chin, so the head's outline stays).
    let jawReach: Float

    /// When cancelled, a frame in progress stops at its next band (the engine is stopping).
    let cancellation: RenderCancellation?

    package init(avatar: Avatar, cancellation: RenderCancellation? = nil) {
        self.cancellation = cancellation
        width = max(avatar.width, 1)
        height = max(avatar.height, 1)
        let count = width * height
        let base = UnsafeMutablePointer<UInt8>.allocate(capacity: count * 3)
        let weight = UnsafeMutablePointer<UInt8>.allocate(capacity: count)
        self.base = base
        self.weight = weight
        let parallaxWeight = UnsafeMutablePointer<UInt8>.allocate(capacity: count)
        parallaxWeight.initialize(repeating: 0, count: count)
        self.parallaxWeight = parallaxWeight
        let flatReach = UnsafeMutablePointer<UInt8>.allocate(capacity: count)
        flatReach.initialize(repeating: 0, count: count)
        self.flatReach = flatReach
        let pixels = avatar.pixels.count == count * 3 ? avatar.pixels : [UInt8](repeating: 0, count: count * 3)
        pixels.withUnsafeBufferPointer { base.initialize(from: $0.baseAddress!, count: count * 3) }
        let mask = avatar.headMask.count == count ? avatar.headMask : [UInt8](repeating: 255, count: count)
        mask.withUnsafeBufferPointer { weight.initialize(from: $0.baseAddress!, count: count) }
        let rig = avatar.character ?? CharacterRig(
            leftEye: SIMD2(Float(width) * 0.35, Float(height) * 0.4), rightEye: SIMD2(Float(width) * 0.65, Float(height) * 0.4),
            leftEyeRadius: 4, rightEyeRadius: 4, mouthLeft: SIMD2(Float(width) * 0.4, Float(height) * 0.6),
            mouthRight: SIMD2(Float(width) * 0.6, Float(height) * 0.6), mouthCenter: SIMD2(Float(width) * 0.5, Float(height) * 0.6),
            leftBrow: nil, rightBrow: nil, mouth: .absent, mouthOpening: 0,
            outline: [SIMD2(0, 0), SIMD2(Float(width), 0), SIMD2(Float(width), Float(height))],
            sourceWidth: width, sourceHeight: height, sourceScale: 1, sourceOffset: .zero)
        self.rig = rig
        let palette = CharacterPalette(pixels: pixels, width: width, height: height, rig: rig)
        self.palette = palette
        let (frameW, frameH) = (width, height)
        eyes = [(rig.leftEye, rig.leftEyeRadius, palette.leftLid), (rig.rightEye, rig.rightEyeRadius, palette.rightLid)]
            .map { centre, radius, lid in
                CharacterEye(pixels: base, width: frameW, height: frameH, centre: centre, radius: radius,
                             eyeDistance: rig.eyeDistance, lid: lid)
            }
        headBox = avatar.headBox

        var lo = SIMD2<Float>(Float.greatestFiniteMagnitude, Float.greatestFiniteMagnitude), hi = -lo
        for p in rig.outline + rig.namedPoints.map(\.point) {
            lo = pointwiseMin(lo, p)
            hi = pointwiseMax(hi, p)
        }
        headSize = max(hi.x - lo.x, hi.y - lo.y, 8)
        pivot = SIMD2((lo.x + hi.x) / 2, hi.y)
        featureCentre = (rig.leftEye + rig.rightEye + rig.mouthCenter) / 3
        featureRadius = max(0.55 * headSize, 8)
        let chord = rig.mouthRight - rig.mouthLeft
        let length = max((chord.x * chord.x + chord.y * chord.y).squareRoot(), 2)
        mouthMid = (rig.mouthLeft + rig.mouthRight) / 2
        mouthAxis = chord / length
        mouthNormal = SIMD2(-mouthAxis.y, mouthAxis.x)
        halfWidth = length / 2
        let toCentre = rig.mouthCenter - mouthMid
        bend = toCentre.x * mouthNormal.x + toCentre.y * mouthNormal.y
        // The chin: how far down from the mouth the head goes on (its mask stays over half), the least of five
        // columns across the mouth. The jaw's pull fades out inside it, so the head's outline stays where the
        // picture draws it (a pull past the chin would draw a second one).
        var chin = 5 * halfWidth
        for t: Float in [-0.6, -0.3, 0, 0.3, 0.6] {
            let start = rig.mouthCenter + mouthAxis * (t * halfWidth)
            var d: Float = 0
            while d < chin {
                let p = start + mouthNormal * (d + 1)
                let x = Int(p.x), y = Int(p.y)
                guard x >= 0, y >= 0, x < width, y < height, weight[y * width + x] >= 128 else { break }
                d += 1
            }
            chin = min(chin, d)
        }
        jawReach = max(2, min(2.1 * halfWidth, 0.85 * chin))
        // The head region: the outline's box, with room for the head's motion and the jaw's drop.
        let margin = 0.1 * headSize + 4
        let drop = 2.6 * halfWidth + rig.mouthOpening
        let x0 = Int((lo.x - margin).rounded(.down)), y0 = Int((lo.y - margin).rounded(.down))
        let x1 = Int((hi.x + margin).rounded(.up)), y1 = Int((max(hi.y, rig.mouthCenter.y + drop) + margin).rounded(.up))
        let cx0 = min(max(x0, 0), width), cy0 = min(max(y0, 0), height)
        let cx1 = min(max(x1, cx0), width), cy1 = min(max(y1, cy0), height)
        region = PixelRect(x: cx0, y: cy0, width: cx1 - cx0, height: cy1 - cy0)

        // Flat reach: 0 where a pixel differs from a 4-neighbour, else the chessboard distance to such a pixel.
        // A cancellation (the engine stopping while this renderer is built) leaves this and the parallax weights
        // unfinished: the renderer will draw nothing.
        let stopped = { cancellation?.isCancelled == true }
        let w = width, h = height
        for y in 0..<h {
            if y & 63 == 0, stopped() { break }
            for x in 0..<w {
                let i = y * w + x
                let p = base + 3 * i
                func same(_ j: Int) -> Bool { let q = base + 3 * j; return q[0] == p[0] && q[1] == p[1] && q[2] == p[2] }
                let flat = (x == 0 || same(i - 1)) && (x == w - 1 || same(i + 1)) && (y == 0 || same(i - w))
                    && (y == h - 1 || same(i + w))
                flatReach[i] = flat ? 255 : 0
            }
        }
        ChessboardDistance.transform(flatReach, width: w, height: h, stop: stopped)
        var farthest: Float = 0
        for corner in [SIMD2<Float>(Float(cx0), Float(cy0)), SIMD2(Float(cx1), Float(cy0)), SIMD2(Float(cx0), Float(cy1)),
                       SIMD2(Float(cx1), Float(cy1))] {
            let d = corner - pivot
            farthest = max(farthest, (d.x * d.x + d.y * d.y).squareRoot())
        }
        pivotReach = farthest

        // The parallax weights, once (the features' centre and reach do not change).
        for y in 0..<height {
            if y & 63 == 0, stopped() { break }
            for x in 0..<width {
                let i = y * width + x
                let d = SIMD2(Float(x), Float(y)) - featureCentre
                let fade = smoothstep(featureRadius, 0.35 * featureRadius, (d.x * d.x + d.y * d.y).squareRoot())
                parallaxWeight[i] = UInt8((Float(weight[i]) * fade).rounded())
            }
        }
    }

    deinit {
        base.deallocate()
        weight.deallocate()
        parallaxWeight.deallocate()
        flatReach.deallocate()
    }

    func view(_ mode: DisplayMode) -> PixelRect {
        mode == .head ? headBox : PixelRect(x: 0, y: 0, width: width, height: height)
    }

    package func render(_ params: FrameParams, mode: DisplayMode, into out: UnsafeMutableRawBufferPointer,
                        over previous: DrawnArea?) -> DrawnArea {
        let view = view(mode)
        precondition(out.count >= view.width * view.height * 3, "frame buffer too small")
        guard view.width > 0, view.height > 0, let raw = out.baseAddress else { return DrawnArea(rect: view, mesh: view) }
        let o = raw.assumingMemoryBound(to: UInt8.self)
        if previous == nil {
            for y in 0..<view.height {
                (o + y * view.width * 3).update(from: base + ((view.y + y) * width + view.x) * 3, count: view.width * 3)
            }
        }
        let x0 = max(region.x, view.x), x1 = min(region.maxX, view.maxX)
        let y0 = max(region.y, view.y), y1 = min(region.maxY, view.maxY)
        guard x1 > x0, y1 > y0 else { return DrawnArea(rect: region, mesh: region) }
        let frame = CharacterFrame(renderer: self, params: params)
        // Where the eyes, brows and mouth draw or move anything this frame, and where they did in the frame this
        // buffer held (to be drawn over with the picture again).
        let active = frame.featureArea(self)
        let stale = previous.flatMap { $0.mesh.width > 0 && $0.mesh.height > 0 ? $0.mesh : nil }
        // A pixel of a flat fill is left as it is only where neither this frame's head motion nor the last one's
        // in this buffer moved anything across the fill's edge (the last one's may have drawn it another colour).
        let moved = frame.headReach(self)
        let kept = max(moved, previous?.reach ?? 0)
        let rows = y1 - y0
        // Four bands (fewer on small regions), and more on large regions so that none holds over 65,536 pixels
        // (a few milliseconds of drawing): a cancellation (the engine stopping) is seen between bands, within
        // milliseconds whatever the frame's size.
        let bands = min(rows, max(min(4, max(1, rows / 48)), (rows * (x1 - x0) + 65_535) / 65_536))
        let cancellation = self.cancellation
        let drawBand: (Int) -> Void = { band in
            if cancellation?.isCancelled == true { return }
            let from = y0 + rows * band / bands, to = y0 + rows * (band + 1) / bands
            self.draw(frame, rows: from..<to, columns: x0..<x1, view: view, active: active, stale: stale, kept: kept,
                      into: o)
        }
        if !(bands > 1 && BandPool.shared.run(bands: bands, drawBand)) {
            for band in 0..<bands { drawBand(band) }
        }
        return DrawnArea(rect: region, mesh: active, reach: moved)
    }
}
