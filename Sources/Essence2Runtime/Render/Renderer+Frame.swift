extension Renderer {
    /// What one frame needs after the rig is evaluated.
    struct FrameState {
        var head: HeadMotion
        /// Destination to source for the background; nil when the head does not move.
        var inverseHead: Affine2?
        /// Image rectangle to redraw (inside the view and the region).
        var dirty: PixelRect
        /// Whether every triangle must be drawn (head motion) or only those that moved.
        var drawAll: Bool
        /// Mouth interior to draw: area, destination-to-mouth-frame map, opening span and centre height.
        var mouthArea: PixelRect
        var mouthToLocal: Affine2
        var openingSpan: ClosedRange<Float>
        var centerGap: Float
        /// The tongue tip's rise and the lips' rounding, from the rig controls.
        var tongue: Float = 0
        var round: Float = 0
        /// How far the upper lip's middle has risen above the teeth's root (mouth frame, <= 0).
        var upperLift: Float = 0
        /// Bounding box of where the mesh and the mouth draw this frame.
        var meshArea = PixelRect(x: 0, y: 0, width: 0, height: 0)
        /// When known, pixels under a 0 head mask outside this rectangle already show the portrait: they are
        /// not written.
        var keep: PixelRect?
    }

    /// Evaluates the rig and head motion for `params` and finds the rectangle to redraw.
    func prepare(_ params: FrameParams, view: PixelRect) -> FrameState {
        let amplitude = rig?.parallaxAmplitude ?? 0
        let head = HeadMotion(pose: params.pose, metrics: metrics, parallaxAmplitude: amplitude)
        let inverse = head.isStill ? nil : (head.transform.inverse ?? .identity)
        var state = FrameState(head: head, inverseHead: inverse, dirty: PixelRect(x: 0, y: 0, width: 0, height: 0),
                               drawAll: !head.isStill, mouthArea: PixelRect(x: 0, y: 0, width: 0, height: 0),
                               mouthToLocal: .identity, openingSpan: 0...0, centerGap: 0)
        var bounds = Bounds()
        if !head.isStill {
            bounds.add(maskSupport)
            bounds.add(meshSupport)
        }
        if let rig {
            let controls = RigControls(articulation: params.articulation, pose: params.pose,
                                       gapMax: rig.gapMax, jawPerGap: rig.jawPerGap)
            rig.deform(controls, head: head.transform, parallaxShift: head.parallax, mask: mask, into: dest)
            state.tongue = controls.tongue
            state.round = controls.round
            let n = rig.source.count
            rig.source.withUnsafeBufferPointer { src in
                for i in 0..<n {
                    let d = dest[i] - src[i]
                    moved[i] = abs(d.x) > 1e-4 || abs(d.y) > 1e-4
                }
                if !head.isStill {
                    for i in 0..<n { bounds.add(dest[i]) }
                } else {
                    for t in rig.triangles {
                        let a = Int(t.x), b = Int(t.y), c = Int(t.z)
                        guard moved[a] || moved[b] || moved[c] else { continue }
                        for i in [a, b, c] { bounds.add(src[i]); bounds.add(dest[i]) }
                    }
                }
            }
            if let mouth { prepareMouth(&state, rig: rig, mouth: mouth, bounds: &bounds) }
            var mesh = Bounds()
            for i in 0..<n { mesh.add(dest[i]) }
            if state.mouthArea.width > 0, state.mouthArea.height > 0 { mesh.add(state.mouthArea) }
            state.meshArea = Renderer.intersect(mesh.rect(grow: 2), view)
        }
        state.dirty = Renderer.intersect(Renderer.intersect(bounds.rect(grow: 2), region), view)
        state.mouthArea = Renderer.intersect(state.mouthArea, state.dirty)
        return state
    }

    /// Tabulates the lip opening in the mouth frame and sets the area of the mouth interior.
    private func prepareMouth(_ state: inout FrameState, rig: FaceRig, mouth: MouthInterior, bounds: inout Bounds) {
        let inverse = state.inverseHead ?? .identity
        let toLocal = rig.mouth.frame.toLocal.after(inverse)
        let up = MediaPipeFace.upperInnerLip, lo = MediaPipeFace.lowerInnerLip
        var area = Bounds()
        var maxGap: Float = -1
        for k in 0..<up.count {
            lipUpper[k] = toLocal.apply(dest[up[k]])
            lipLower[k] = toLocal.apply(dest[lo[k]])
            area.add(dest[up[k]]); area.add(dest[lo[k]])
            // A closed-mouthed portrait's own tiny landmark gaps count as closed.
            maxGap = max(maxGap, lipLower[k].y - lipUpper[k].y - rig.mouth.closedSlack(lipLower[k].x))
        }
        guard maxGap > 0.02 || rig.mouth.photographedGapMax > 0 else { return }
        mouth.setOpening(upper: lipUpper, lower: lipLower, points: up.count, rounded: FaceRig.roundedShare(state.round))
        let r = area.rect(grow: 3)
        bounds.add(r)
        state.mouthArea = r
        state.mouthToLocal = toLocal
        let xs = (0..<up.count).map { lipUpper[$0].x }
        state.openingSpan = xs.min()!...xs.max()!
        let mid = up.count / 2
        state.centerGap = max(0, lipLower[mid].y - lipUpper[mid].y)
        let x = lipUpper[mid].x
        state.upperLift = min(0, lipUpper[mid].y - (rig.mouth.upperInner(x) + FaceRig.closeUpperShare * rig.mouth.photographedGap(x)))
    }

    /// Destination-to-source map of one triangle. A sliver (under half a pixel of area) would amplify any
    /// rounding into wild sample positions, so it just moves with its centre instead.
    static func triangleMap(_ p0: SIMD2<Float>, _ p1: SIMD2<Float>, _ p2: SIMD2<Float>,
                            to s0: SIMD2<Float>, _ s1: SIMD2<Float>, _ s2: SIMD2<Float>) -> Affine2 {
        let u = p1 - p0, v = p2 - p0
        if abs(u.x * v.y - u.y * v.x) >= 1, let map = Affine2.mapping(p0, p1, p2, to: s0, s1, s2) { return map }
        let t = (s0 + s1 + s2 - p0 - p1 - p2) / 3
        return Affine2(a: 1, b: 0, c: t.x, d: 0, e: 1, f: t.y)
    }

    /// Copies the portrait into the parts of `within` (a rectangle of the view) outside `dirty`.
    func copyPortrait(into out: UnsafeMutablePointer<UInt8>, view: PixelRect, within area: PixelRect,
                      except dirty: PixelRect) {
        portraitPixels.withUnsafeBufferPointer { buffer in
            guard let portrait = buffer.baseAddress else { return }
            copyPortrait(portrait, into: out, view: view, within: area, except: dirty)
        }
    }

    private func copyPortrait(_ portrait: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<UInt8>, view: PixelRect,
                              within area: PixelRect, except dirty: PixelRect) {
        let rowBytes = view.width * 3
        let hasDirty = dirty.width > 0 && dirty.height > 0
        guard area.width > 0, area.height > 0 else { return }
        if !hasDirty, area == view, view.x == 0, view.width == width {
            out.update(from: portrait + view.y * rowBytes, count: rowBytes * view.height)
            return
        }
        // Columns [from, to) of row y, in the view's coordinates.
        func copy(_ y: Int, _ from: Int, _ to: Int) {
            guard to > from else { return }
            let src = portrait + (y * width + from) * 3
            (out + (y - view.y) * rowBytes + (from - view.x) * 3).update(from: src, count: (to - from) * 3)
        }
        for y in area.y..<area.maxY {
            if hasDirty, y >= dirty.y, y < dirty.maxY {
                copy(y, area.x, min(area.maxX, dirty.x))
                copy(y, max(area.x, dirty.maxX), area.maxX)
            } else {
                copy(y, area.x, area.maxX)
            }
        }
    }

    /// Fewest rows a band is worth splitting off for another core.
    static let minimumBandRows = 48

    /// Redraws `state.dirty`: split into horizontal bands drawn on every core when the pool is free (each pixel
    /// is computed the same way whichever band it falls in, so the frame is the same bytes), else whole.
    func draw(_ state: FrameState, into out: UnsafeMutablePointer<UInt8>, view: PixelRect) {
        let d = state.dirty
        let pool = BandPool.shared
        let bands = min(pool.workers + 1, d.height / Self.minimumBandRows)
        if bands > 1 {
            let split = pool.run(bands: bands) { index in
                let top = d.y + d.height * index / bands, bottom = d.y + d.height * (index + 1) / bands
                drawBand(state, band: PixelRect(x: d.x, y: top, width: d.width, height: bottom - top), into: out, view: view)
            }
            if split { return }
        }
        drawBand(state, band: d, into: out, view: view)
    }

    /// Redraws the rows `band` of `state.dirty`: the mesh triangles, then the background under the head mask,
    /// then the mouth.
    private func drawBand(_ state: FrameState, band d: PixelRect, into out: UnsafeMutablePointer<UInt8>, view: PixelRect) {
        let covStride = d.width
        // The band's rows of the coverage buffer (laid out over the whole dirty rectangle, row by row).
        let bandCoverage = coverage + (d.y - state.dirty.y) * covStride
        for y in 0..<d.height { (bandCoverage + y * covStride).update(repeating: 0, count: d.width) }
        let canvas = FrameCanvas(out: out, view: view, dirty: d, coverage: bandCoverage,
                                 source: UnsafePointer(window.pixels), sourceRect: window.rect)
        if let rig {
            rig.texture.withUnsafeBufferPointer { src in
                for t in rig.triangles {
                    let a = Int(t.x), b = Int(t.y), c = Int(t.z)
                    if !state.drawAll && !(moved[a] || moved[b] || moved[c]) { continue }
                    let p0 = dest[a], p1 = dest[b], p2 = dest[c]
                    let minX = min(p0.x, p1.x, p2.x), maxX = max(p0.x, p1.x, p2.x)
                    let minY = min(p0.y, p1.y, p2.y), maxY = max(p0.y, p1.y, p2.y)
                    if maxX < Float(d.x) || minX > Float(d.maxX) || maxY < Float(d.y) || minY > Float(d.maxY) { continue }
                    canvas.drawTriangle(p0, p1, p2, map: Renderer.triangleMap(p0, p1, p2, to: src[a], src[b], src[c]))
                }
            }
        }
        let maskBase = UnsafePointer(maskPixels)
        canvas.fillBackground(inverseHead: state.inverseHead, mask: maskBase, maskSpans: UnsafePointer(maskSpans),
                              skipOutside: state.keep)
        let mouthArea = Renderer.intersect(state.mouthArea, d)
        if let mouth, mouthArea.width > 0, mouthArea.height > 0 {
            mouth.draw(on: canvas, area: mouthArea, toLocal: state.mouthToLocal,
                       openingSpan: state.openingSpan, centerGap: state.centerGap, tongue: state.tongue,
                       round: state.round, upperLift: state.upperLift)
        }
    }
}
