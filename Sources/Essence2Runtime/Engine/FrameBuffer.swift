/// One frame's pixel memory, owned by whoever holds the reference (the engine's state, under its lock,
/// or the render thread while it draws into it).
///
/// The memory is its own anonymous mapping, given back to the system when the buffer goes: frames are large
/// (0.9 MB at 512x600, 6.2 MB at 1080x1920) and come and go with the replies, and through malloc glibc's
/// dynamic mmap threshold would keep freed frames in its arenas, one per thread, so the host's resident memory
/// would grow for hours (`make soak` measured +47 MB in two minutes of ten engines).
final class FrameBuffer: @unchecked Sendable {
    let bytes: UnsafeMutableRawBufferPointer
    let mode: DisplayMode
    /// Where the last frame rendered into this memory differs from the portrait (nil: unknown content), so the
    /// next render restores only that rectangle. Touched only by the thread that holds the buffer.
    var drawn: DrawnArea?

    /// nil when the memory cannot be had.
    init?(count: Int, mode: DisplayMode) {
        guard count > 0,
              let base = mmap(nil, count, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              base != MAP_FAILED
        else { return nil }
        bytes = UnsafeMutableRawBufferPointer(start: base, count: count)
        self.mode = mode
    }

    deinit {
        munmap(bytes.baseAddress, bytes.count)
    }
}

#if canImport(Glibc)
import Glibc
#endif
