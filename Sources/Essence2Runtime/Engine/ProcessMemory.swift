#if canImport(Glibc)
import Glibc
#endif

/// The process's freed heap memory, given back to the system when an engine ends.
///
/// An engine's avatar, renderer and frames are megabytes allocated by whichever thread touched them, spread
/// over glibc's per-thread arenas; freed, they stay in those arenas, so a host that creates and destroys engines
/// for hours (`make soak`: ten engines, a recreate a minute) would see its resident memory climb although
/// nothing is held. glibc's `malloc_trim` returns the free pages of every arena; it takes a few milliseconds, and
/// runs only when an engine's render thread ends and when the C interface destroys a handle. It is looked up at
/// run time (`<malloc.h>` is not in the Glibc module), and skipped where the C library has none.
package enum ProcessMemory {
    private typealias Trim = @convention(c) (Int) -> Int32

    private static let trim: Trim? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(nil, "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: Trim.self)
        #else
        return nil
        #endif
    }()

    package static func returnFreed() {
        _ = trim?(0)
    }
}
