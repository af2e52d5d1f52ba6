/// What the render thread draws frames with: `Renderer` for a photoreal portrait (Essence 2),
/// `CharacterRenderer` for a character (Expression 2). One per render thread; not thread-safe.
package protocol FrameDrawing: AnyObject {
    /// Renders into `out` (at least the mode's frame size x 3 bytes), which holds what the last call returned
    /// `previous` for (nil: unknown content). Returns where this frame drew, for the next call.
    func render(_ params: FrameParams, mode: DisplayMode, into out: UnsafeMutableRawBufferPointer,
                over previous: DrawnArea?) -> DrawnArea
}

extension Renderer: FrameDrawing {}

extension Avatar {
    /// The renderer for this avatar's kind; a character's stops drawing between bands once `cancellation` is
    /// cancelled.
    package func makeRenderer(cancellation: RenderCancellation? = nil) -> any FrameDrawing {
        switch kind {
        case .photoreal: Renderer(avatar: self)
        case .character: CharacterRenderer(avatar: self, cancellation: cancellation)
        }
    }
}
