/// Where a rendered frame differs from the portrait: anywhere inside `rect` (the rectangle it redrew), and
/// where the head mask is 0 only inside `mesh` (where its mesh and mouth drew). What `Renderer.render(_:mode:
/// into:over:)` returns for a buffer and takes back for the next frame drawn into it. A character's frame
/// (`CharacterRenderer`) also records `reach`: how far its head's motion moved any pixel, so that the next frame
/// drawn into the buffer redraws every pixel that motion may have changed.
package struct DrawnArea: Sendable, Equatable {
    package var rect: PixelRect
    package var mesh: PixelRect
    package var reach: Int

    package init(rect: PixelRect, mesh: PixelRect, reach: Int = 0) {
        self.rect = rect
        self.mesh = mesh
        self.reach = reach
    }
}
