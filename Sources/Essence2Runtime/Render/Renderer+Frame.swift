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
            let controls = RigControls(articulation: params.articulation, blink: params.pose.blink,
                                       gapMax: rig.gapMax, jawPerGap: rig.jawPerGap)
            rig.deform(controls, head: head.transform, parallaxShift: head.parallax, mask: mask, into: dest)
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
        mouth.setOpening(upper: lipUpper, lower: lipLower, points: up.count)
        let r = area.rect(grow: 3)
        bounds.add(r)
        state.mouthArea = r
        state.mouthToLocal = toLocal
        let xs = (0..<up.count).map { lipUpper[$0].x }
        state.openingSpan = xs.min()!...xs.max()!
        let mid = up.count / 2
        state.centerGap = max(0, lipLower[mid].y - lipUpper[mid].y)
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

    /// Copies the portrait into the parts of the output outside `dirty`.
    func copyPortrait(into out: UnsafeMutablePointer<UInt8>, view: PixelRect, except dirty: PixelRect) {
        let rowBytes = view.width * 3
        let hasDirty = dirty.width > 0 && dirty.height > 0
        if !hasDirty, view.x == 0, view.width == width {
            out.update(from: portrait + view.y * rowBytes, count: rowBytes * view.height)
            return
        }
        for y in view.y..<view.maxY {
            let src = portrait + (y * width + view.x) * 3
            let dst = out + (y - view.y) * rowBytes
            if hasDirty, y >= dirty.y, y < dirty.maxY {
                let left = (dirty.x - view.x) * 3
                dst.update(from: src, count: left)
                let right = (dirty.maxX - view.x) * 3
                (dst + right).update(from: src + right, count: rowBytes - right)
            } else {
                dst.update(from: src, count: rowBytes)
            }
        }
    }

    /// Redraws `state.dirty`: the mesh triangles, then the background under the head mask, then the mouth.
    func draw(_ state: FrameState, into out: UnsafeMutablePointer<UInt8>, view: PixelRect) {
        let d = state.dirty
        let covStride = d.width
        for y in 0..<d.height { (coverage + y * covStride).update(repeating: 0, count: d.width) }
        let canvas = FrameCanvas(out: out, view: view, dirty: d, coverage: coverage,
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
        canvas.fillBackground(inverseHead: state.inverseHead, mask: maskBase)
        if let mouth, state.mouthArea.width > 0, state.mouthArea.height > 0 {
            mouth.draw(on: canvas, area: state.mouthArea, toLocal: state.mouthToLocal,
                       openingSpan: state.openingSpan, centerGap: state.centerGap)
        }
    }
}
