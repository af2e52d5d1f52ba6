import Essence2Runtime

/// The live engines of the process, held weakly, for `Essence2Engine.quiesceAll`.
final class EngineRegistry: Sendable {
    static let shared = EngineRegistry()

    private struct Entry {
        weak var engine: Essence2Engine?
    }

    private let entries = Locked<(next: UInt64, live: [UInt64: Entry])>((0, [:]))

    func nextID() -> UInt64 {
        entries.withLock { state in
            state.next += 1
            return state.next
        }
    }

    func add(_ engine: Essence2Engine) {
        entries.withLock { $0.live[engine.registration] = Entry(engine: engine) }
    }

    func remove(_ id: UInt64) {
        _ = entries.withLock { $0.live.removeValue(forKey: id) }
    }

    func all() -> [Essence2Engine] {
        entries.withLock { state in state.live.values.compactMap(\.engine) }
    }
}
