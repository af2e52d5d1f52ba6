#if canImport(Glibc)
import Glibc
#endif

/// How the engines' memory goes back to the system, so that a host running engines for hours keeps a flat
/// resident size.
///
/// Engines allocate megabytes at a time (an avatar's pictures and tables when it loads, 0.9-13 MB each) from
/// whichever thread touches them. Out of the box, glibc serves a block that large with a mapping of its own
/// until the first such block is freed, and from then on raises its threshold to that size (up to 32 MB), so
/// later avatars land in the per-thread arenas, whose freed space stays resident: `make soak` (ten engines, a
/// recreate a minute) saw its resident memory climb 3 MB a minute with the bytes in use flat. Fixing the
/// threshold at 1 MiB when the first engine starts keeps large blocks in their own mappings, returned when
/// freed (+0.9 MB over two minutes). A host that set `MALLOC_MMAP_THRESHOLD_` keeps its own setting.
/// `malloc_trim` then returns the arenas' free pages when an engine's render thread ends and when the C
/// interface destroys a handle. Both are looked up at run time (`<malloc.h>` is not in the Glibc module) and
/// skipped where the C library has neither.
package enum ProcessMemory {
    private typealias Trim = @convention(c) (Int) -> Int32
    private typealias Option = @convention(c) (Int32, Int32) -> Int32

    /// glibc's `M_MMAP_THRESHOLD`.
    private static let mmapThresholdOption: Int32 = -3
    /// Blocks from this size up get mappings of their own.
    package static let mmapThreshold: Int32 = 1 << 20

    private static let trim: Trim? = symbol("malloc_trim", as: Trim.self)

    /// Set once, by the first engine (a `static let` runs its initialiser once, thread-safely).
    private static let threshold: Bool = {
        guard getenv("MALLOC_MMAP_THRESHOLD_") == nil, let mallopt = symbol("mallopt", as: Option.self) else {
            return false
        }
        return mallopt(mmapThresholdOption, mmapThreshold) == 1
    }()

    /// Called when an engine starts: fixes the mmap threshold, once per process.
    package static func prepare() {
        _ = threshold
    }

    package static func returnFreed() {
        _ = trim?(0)
    }

    private static func symbol<T>(_ name: String, as type: T.Type) -> T? {
        #if canImport(Glibc)
        guard let address = dlsym(nil, name) else { return nil }
        return unsafeBitCast(address, to: type)
        #else
        return nil
        #endif
    }
}
