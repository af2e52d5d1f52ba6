/// One frame's pixel memory, owned by whoever holds the reference (the engine's state, under its lock,
/// or the render thread while it draws into it).
final class FrameBuffer: @unchecked Sendable {
    let bytes: UnsafeMutableRawBufferPointer
    let mode: DisplayMode
    /// Where the last frame rendered into this memory differs from the portrait (nil: unknown content), so the
    /// next render restores only that rectangle. Touched only by the thread that holds the buffer.
    var drawn: DrawnArea?

    /// nil when the memory cannot be had.
    init?(count: Int, mode: DisplayMode) {
        guard count > 0, let base = malloc(count) else { return nil }
        bytes = UnsafeMutableRawBufferPointer(start: base, count: count)
        self.mode = mode
    }

    deinit {
        free(bytes.baseAddress)
    }
}

#if canImport(Glibc)
import Glibc
#endif
