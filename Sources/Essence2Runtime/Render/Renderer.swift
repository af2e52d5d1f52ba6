/// Draws frames of one avatar: the portrait with its face warped by a triangle mesh (piecewise-affine,
/// bilinear sampling) to follow an articulation, a synthesized mouth interior where the lips part, and the
/// idle pose (blinks, breathing, head motion).
///
/// Only the part of the frame that changes is redrawn; the rest is a copy of the portrait.
/// Not thread-safe: one Renderer per render thread.
package final class Renderer {
    package let width: Int
    package let height: Int
    /// The portrait, packed B,G,R (`width * height * 3` bytes).
    let portraitPixels: [UInt8]
    /// HEAD-mode crop, inside the portrait.
    package let headBox: PixelRect
    let metrics: FaceMetrics
    let rig: FaceRig?
    let mouth: MouthInterior?
    /// Where frames can differ from the portrait.
    let region: PixelRect
    /// Where the head mask is non-zero, and the bounding box of the mesh in the portrait.
    let maskSupport: PixelRect
    let meshSupport: PixelRect
    /// Portrait pixels around `region`, for sampling.
    let window: SourceWindow
    /// Head-motion weight per pixel of `window.rect`.
    let mask: HeadMask
    let maskPixels: UnsafeMutablePointer<UInt8>
    /// Per row of `window.rect`: the image columns [lo, hi) outside which the head mask is 0.
    let maskSpans: UnsafeMutablePointer<SIMD2<Int32>>
    /// Per frame: drawn-pixel flags over `window.rect`, vertex destinations, moved-vertex flags.
    let coverage: UnsafeMutablePointer<UInt8>
    let dest: UnsafeMutablePointer<SIMD2<Float>>
    let moved: UnsafeMutablePointer<Bool>
    let lipUpper: UnsafeMutablePointer<SIMD2<Float>>
    let lipLower: UnsafeMutablePointer<SIMD2<Float>>

    /// Precomputes everything the frames need (mesh rig, head mask, source window, mouth colours).
    package init(avatar: Avatar) {
        width = max(avatar.width, 0)
        height = max(avatar.height, 0)
        let byteCount = width * height * 3
        // The avatar's own pixels, shared with it (no copy) when they have the right size, as a valid avatar's do.
        let imageWidth = width, imageHeight = height
        var pixels = avatar.pixels
        if pixels.count != byteCount || byteCount == 0 {
            pixels = Array(pixels.prefix(byteCount)) + [UInt8](repeating: 0, count: max(1, byteCount - min(pixels.count, byteCount)))
        }
        portraitPixels = pixels
        headBox = Renderer.clampedHeadBox(avatar.headBox, width: width, height: height, faceBox: avatar.landmarks.faceBox)

        let rig = FaceRig(mesh: avatar.mesh, landmarks: avatar.landmarks)
        self.rig = rig
        let metrics = rig?.metrics ?? FaceMetrics(mesh: avatar.mesh, landmarks: avatar.landmarks)
        self.metrics = metrics

        // Head mask: the avatar's own (softened) or one derived from the face.
        var headMask: HeadMask
        if avatar.headMask.count == width * height, avatar.headMask.contains(where: { $0 != 0 }) {
            headMask = HeadMask.softened(avatar.headMask, width: width, height: height,
                                         radius: max(2, Int(0.03 * metrics.height)))
        } else {
            headMask = HeadMask.derived(metrics: metrics, imageWidth: width, imageHeight: height)
        }

        // Region that may change: the mask plus the mesh with room for the jaw and head motion.
        var region = headMask.support
        maskSupport = region
        var meshRect = PixelRect(x: 0, y: 0, width: 0, height: 0)
        let pivotRadius = 2 * metrics.height
        let motion = HeadMotion.maxDisplacement(metrics: metrics, parallaxAmplitude: rig?.parallaxAmplitude ?? 0,
                                                radius: pivotRadius)
        if let rig {
            var b = Bounds()
            for p in rig.source { b.add(p) }
            meshRect = b.rect(grow: 1)
            let xs = rig.source.map(\.x), ys = rig.source.map(\.y)
            let grow = motion + rig.gapMax * 1.3
            let x0 = Int((xs.min()! - grow).rounded(.down)), x1 = Int((xs.max()! + grow).rounded(.up))
            let y0 = Int((ys.min()! - grow).rounded(.down)), y1 = Int((ys.max()! + grow).rounded(.up))
            region = Renderer.union(region, PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0))
        }
        region = Renderer.intersect(region, PixelRect(x: 0, y: 0, width: width, height: height))
        meshSupport = meshRect
        let pad = 2
        var windowRect = Renderer.intersect(
            PixelRect(x: region.x - pad, y: region.y - pad, width: region.width + 2 * pad, height: region.height + 2 * pad),
            PixelRect(x: 0, y: 0, width: width, height: height))
        if windowRect.width < 2 || windowRect.height < 2 {
            windowRect = PixelRect(x: 0, y: 0, width: 0, height: 0)
            region = windowRect
        }
        self.region = region
        // `pixels` holds at least one byte, so its buffer has a base address.
        window = pixels.withUnsafeBufferPointer { image in
            SourceWindow(image: image.baseAddress!, imageWidth: imageWidth, rect: windowRect)
        }
        headMask = headMask.resampled(to: windowRect)
        mask = headMask
        let area = max(windowRect.width * windowRect.height, 1)
        let maskCopy = UnsafeMutablePointer<UInt8>.allocate(capacity: area)
        maskCopy.initialize(repeating: 0, count: area)
        headMask.values.withUnsafeBufferPointer { p in
            if let b = p.baseAddress { maskCopy.update(from: b, count: min(p.count, area)) }
        }
        maskPixels = maskCopy
        let rows = max(windowRect.height, 1)
        maskSpans = .allocate(capacity: rows)
        maskSpans.initialize(repeating: .zero, count: rows)
        for y in 0..<windowRect.height {
            let row = maskCopy + y * windowRect.width
            var lo = 0, hi = windowRect.width
            while lo < hi, row[lo] == 0 { lo += 1 }
            while hi > lo, row[hi - 1] == 0 { hi -= 1 }
            maskSpans[y] = lo < hi ? SIMD2(Int32(windowRect.x + lo), Int32(windowRect.x + hi)) : .zero
        }
        coverage = .allocate(capacity: area)
        coverage.initialize(repeating: 0, count: area)
        let vertexCount = max(rig?.source.count ?? 0, 1)
        dest = .allocate(capacity: vertexCount)
        dest.initialize(repeating: .zero, count: vertexCount)
        moved = .allocate(capacity: vertexCount)
        moved.initialize(repeating: false, count: vertexCount)
        lipUpper = .allocate(capacity: MediaPipeFace.upperInnerLip.count)
        lipUpper.initialize(repeating: .zero, count: MediaPipeFace.upperInnerLip.count)
        lipLower = .allocate(capacity: MediaPipeFace.lowerInnerLip.count)
        lipLower.initialize(repeating: .zero, count: MediaPipeFace.lowerInnerLip.count)

        if let rig, width > 0, height > 0 {
            let palette = pixels.withUnsafeBufferPointer { image in
                MouthPalette(image: image.baseAddress!, width: imageWidth, height: imageHeight, points: rig.source,
                             mouth: rig.mouth, faceHeight: metrics.height)
            }
            mouth = MouthInterior(mouth: rig.mouth, palette: palette, closeUpper: FaceRig.closeUpperShare)
        } else {
            mouth = nil
        }
    }

    deinit {
        maskPixels.deallocate()
        coverage.deallocate()
        dest.deallocate()
        moved.deallocate()
        maskSpans.deallocate()
        lipUpper.deallocate()
        lipLower.deallocate()
    }

    /// Frame size in pixels: FULL is the portrait's size, HEAD the head box's.
    package func frameSize(_ mode: DisplayMode) -> (width: Int, height: Int) {
        let v = view(mode)
        return (v.width, v.height)
    }

    /// Draws one frame, packed B,G,R, rows top to bottom, no padding. `out.count` must be at least
    /// `width * height * 3` of `mode`'s frame size.
    package func render(_ params: FrameParams, mode: DisplayMode, into out: UnsafeMutableRawBufferPointer) {
        _ = render(params, mode: mode, into: out, over: nil)
    }

    /// Renders into `out`, which already holds a frame of `mode` as the last call left it for this buffer
    /// (`previous`, what that call returned; nil for memory of unknown content): only `previous.rect` is
    /// restored around the new frame, not the whole portrait copied again, and where the head mask is 0 outside
    /// both frames' mesh nothing is written at all. Returns where this frame drew, for the next call.
    package func render(_ params: FrameParams, mode: DisplayMode, into out: UnsafeMutableRawBufferPointer,
                        over previous: DrawnArea?) -> DrawnArea {
        let view = view(mode)
        precondition(out.count >= view.width * view.height * 3, "frame buffer too small")
        guard view.width > 0, view.height > 0, let base = out.baseAddress else { return DrawnArea(rect: view, mesh: view) }
        let o = base.assumingMemoryBound(to: UInt8.self)
        var frame = prepare(params, view: view)
        copyPortrait(into: o, view: view, within: previous.map { Renderer.intersect($0.rect, view) } ?? view,
                     except: frame.dirty)
        // Pixels under a 0 mask that neither this frame's mesh nor the last one's touched show the portrait
        // already (by induction from a first render that wrote every pixel).
        if let previous { frame.keep = Renderer.union(frame.meshArea, previous.mesh) }
        if frame.dirty.width > 0, frame.dirty.height > 0 { draw(frame, into: o, view: view) }
        return DrawnArea(rect: frame.dirty, mesh: frame.meshArea)
    }

    func view(_ mode: DisplayMode) -> PixelRect {
        mode == .head ? headBox : PixelRect(x: 0, y: 0, width: width, height: height)
    }
}
