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
/// skipped where the C library has neither or another allocator replaced glibc's (AddressSanitizer, a
/// preloaded jemalloc): glibc's `malloc_trim` on arenas it never set up crashes.
package enum ProcessMemory {
    private typealias Trim = @convention(c) (Int) -> Int32
    private typealias Option = @convention(c) (Int32, Int32) -> Int32

    /// glibc's `M_MMAP_THRESHOLD`.
    private static let mmapThresholdOption: Int32 = -3
    /// Blocks from this size up get mappings of their own.
    package static let mmapThreshold: Int32 = 1 << 20

    /// True when the process allocates with glibc's own malloc: not when another allocator replaced it
    /// (AddressSanitizer, jemalloc or tcmalloc preloaded), where glibc's arenas are never set up and its
    /// `malloc_trim` would read through null pointers.
    private static let glibcAllocates: Bool = {
        #if canImport(Glibc)
        guard let libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD) else { return false }
        defer { dlclose(libc) }
        guard let own = dlsym(libc, "malloc"), let used = dlsym(nil, "malloc") else { return false }
        return own == used
        #else
        return false
        #endif
    }()

    private static let trim: Trim? = glibcAllocates ? symbol("malloc_trim", as: Trim.self) : nil

    /// Set once, by the first engine (a `static let` runs its initialiser once, thread-safely).
    private static let threshold: Bool = {
        guard glibcAllocates, getenv("MALLOC_MMAP_THRESHOLD_") == nil,
              let mallopt = symbol("mallopt", as: Option.self) else { return false }
        return mallopt(mmapThresholdOption, mmapThreshold) == 1
    }()

    /// Called when an engine starts, before its render thread: fixes the mmap threshold, once per process, and
    /// looks `malloc_trim` up, so that the render threads only read what was set before they were created
    /// (ThreadSanitizer cannot see the runtime's once-initialisation of a `static let`: a render thread that ends at
    /// once could otherwise look it up while the host's destroy does).
    package static func prepare() {
        _ = threshold
        _ = trim
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
