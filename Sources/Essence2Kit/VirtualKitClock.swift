import Essence2Runtime

/// Virtual time for tests: it moves only by `advance`, which wakes every sleeper whose deadline has come.
package final class VirtualKitClock: KitClock, Sendable {
    private let manual: ManualClock
    private struct Sleeper {
        let deadline: Int64
        let id: UInt64
        let continuation: CheckedContinuation<Void, Never>
    }

    private let sleepers = Locked<(next: UInt64, waiting: [Sleeper])>((0, []))

    package init(start: Int64 = 1_000_000_000) {
        manual = ManualClock(start: start)
    }

    /// The engine's view of this clock.
    package var engineClock: ManualClock { manual }

    package func nanoseconds() -> Int64 { manual.nanoseconds() }

    /// Moves time forward and wakes the sleepers whose deadline has come.
    package func advance(by nanoseconds: Int64) {
        manual.advance(by: nanoseconds)
        let now = manual.nanoseconds()
        let due = sleepers.withLock { state -> [Sleeper] in
            let due = state.waiting.filter { $0.deadline <= now }
            state.waiting.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Tasks sleeping on this clock now.
    package var sleeperCount: Int { sleepers.withLock { $0.waiting.count } }

    package func sleep(until deadline: Int64) async {
        if deadline <= nanoseconds() || Task.isCancelled { return }
        let id = sleepers.withLock { state -> UInt64 in
            state.next += 1
            return state.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = sleepers.withLock { state -> Bool in
                    if deadline <= manual.nanoseconds() || Task.isCancelled { return true }
                    state.waiting.append(Sleeper(deadline: deadline, id: id, continuation: continuation))
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let cancelled = sleepers.withLock { state -> Sleeper? in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiting.remove(at: index)
            }
            cancelled?.continuation.resume()
        }
    }
}
