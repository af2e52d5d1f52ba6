extension Renderer {
    /// Growing bounding box of points and rectangles, in image coordinates.
    struct Bounds {
        var minX = Float.infinity, minY = Float.infinity, maxX = -Float.infinity, maxY = -Float.infinity

        mutating func add(_ p: SIMD2<Float>) {
            guard p.x.isFinite, p.y.isFinite else { return }
            minX = min(minX, p.x); maxX = max(maxX, p.x); minY = min(minY, p.y); maxY = max(maxY, p.y)
        }

        mutating func add(_ r: PixelRect) {
            guard r.width > 0, r.height > 0 else { return }
            add(SIMD2(Float(r.x), Float(r.y))); add(SIMD2(Float(r.maxX), Float(r.maxY)))
        }

        /// Whole pixels covering the box, grown by `grow` on every side (empty when nothing was added).
        func rect(grow: Int) -> PixelRect {
            guard minX <= maxX, minY <= maxY else { return PixelRect(x: 0, y: 0, width: 0, height: 0) }
            let x0 = Int(max(minX, -1e7).rounded(.down)) - grow, y0 = Int(max(minY, -1e7).rounded(.down)) - grow
            let x1 = Int(min(maxX, 1e7).rounded(.up)) + grow, y1 = Int(min(maxY, 1e7).rounded(.up)) + grow
            return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        }
    }

    static func intersect(_ a: PixelRect, _ b: PixelRect) -> PixelRect {
        let x0 = max(a.x, b.x), y0 = max(a.y, b.y), x1 = min(a.maxX, b.maxX), y1 = min(a.maxY, b.maxY)
        guard x0 < x1, y0 < y1 else { return PixelRect(x: 0, y: 0, width: 0, height: 0) }
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    static func union(_ a: PixelRect, _ b: PixelRect) -> PixelRect {
        if a.width <= 0 || a.height <= 0 { return b }
        if b.width <= 0 || b.height <= 0 { return a }
        let x0 = min(a.x, b.x), y0 = min(a.y, b.y)
        return PixelRect(x: x0, y: y0, width: max(a.maxX, b.maxX) - x0, height: max(a.maxY, b.maxY) - y0)
    }

    /// The avatar's head box limited to the portrait; a square around the face when it has no area there.
    package static func clampedHeadBox(_ box: PixelRect, width: Int, height: Int, faceBox: PixelRect) -> PixelRect {
        let image = PixelRect(x: 0, y: 0, width: width, height: height)
        let b = intersect(box, image)
        if b.width > 0, b.height > 0 { return b }
        let side = min(max(faceBox.width, faceBox.height) * 2, width, height)
        guard side > 0 else { return PixelRect(x: 0, y: 0, width: min(width, height), height: min(width, height)) }
        let cx = faceBox.x + faceBox.width / 2, cy = faceBox.y + faceBox.height / 2
        let x = min(max(cx - side / 2, 0), width - side), y = min(max(cy - side / 2, 0), height - side)
        return PixelRect(x: x, y: y, width: side, height: side)
    }
}
