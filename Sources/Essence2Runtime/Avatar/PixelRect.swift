/// An axis-aligned rectangle in whole pixels (x right, y down).
package struct PixelRect: Sendable, Equatable, Hashable {
    package var x: Int
    package var y: Int
    package var width: Int
    package var height: Int

    package init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    package var maxX: Int { x + width }
    package var maxY: Int { y + height }
}

extension PixelRect {
    /// The part of this rectangle inside a `width` x `height` frame (empty, at the nearest edge, when none).
    package func clipped(width: Int, height: Int) -> PixelRect {
        let x0 = min(max(x, 0), width), y0 = min(max(y, 0), height)
        let x1 = min(max(maxX, x0), width), y1 = min(max(maxY, y0), height)
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}
