import Essence2Runtime

/// Time for the Kit: the engine's monotonic clock, and a way to wait on it. Injected so that the Kit's streams
/// run on virtual time in tests (`VirtualKitClock`).
package protocol KitClock: MonotonicClock {
    /// Suspends until the clock reads at least `deadline` (nanoseconds), or the task is cancelled.
    func sleep(until deadline: Int64) async
}

/// The system's monotonic clock, waited on with `Task.sleep`.
package struct SystemKitClock: KitClock {
    private let system = SystemClock()

    package init() {}

    package func nanoseconds() -> Int64 { system.nanoseconds() }

    package func sleep(until deadline: Int64) async {
        let left = deadline - nanoseconds()
        guard left > 0 else {
            await Task.yield()
            return
        }
        try? await Task.sleep(nanoseconds: UInt64(left))
    }
}
