/// Where a rendered frame differs from the portrait: anywhere inside `rect` (the rectangle it redrew), and
/// where the head mask is 0 only inside `mesh` (where its mesh and mouth drew). What `Renderer.render(_:mode:
/// into:over:)` returns for a buffer and takes back for the next frame drawn into it.
package struct DrawnArea: Sendable, Equatable {
    package var rect: PixelRect
    package var mesh: PixelRect

    package init(rect: PixelRect, mesh: PixelRect) {
        self.rect = rect
        self.mesh = mesh
    }
}
