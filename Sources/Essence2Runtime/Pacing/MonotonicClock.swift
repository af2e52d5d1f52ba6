#if canImport(Glibc)
import Glibc
#endif

/// A source of monotonic time in nanoseconds. Injected into the engine so pacing can run on virtual time in tests.
package protocol MonotonicClock: Sendable {
    /// Nanoseconds since an arbitrary fixed origin; never decreases.
    func nanoseconds() -> Int64
}

/// The system's monotonic clock (`CLOCK_MONOTONIC`).
package struct SystemClock: MonotonicClock {
    package init() {}

    package func nanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}
