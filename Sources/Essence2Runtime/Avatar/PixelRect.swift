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
