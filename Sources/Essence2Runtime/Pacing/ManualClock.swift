import Synchronization

/// A clock that moves only when told to: virtual time for tests of pacing.
package final class ManualClock: MonotonicClock, Sendable {
    private let now: Atomic<Int64>

    package init(start: Int64 = 1_000_000_000) {
        now = Atomic(start)
    }

    package func nanoseconds() -> Int64 { now.load(ordering: .acquiring) }

    /// Moves the clock forward by `nanoseconds` (negative values are ignored: time never goes back).
    package func advance(by nanoseconds: Int64) {
        guard nanoseconds > 0 else { return }
        now.add(nanoseconds, ordering: .releasing)
    }

    /// Moves the clock forward by `milliseconds`.
    package func advance(milliseconds: Double) {
        advance(by: Int64(milliseconds * 1_000_000))
    }
}
