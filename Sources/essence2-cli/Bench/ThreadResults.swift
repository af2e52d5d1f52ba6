import Synchronization

/// One result slot per thread of a parallel bench step.
final class ThreadResults: Sendable {
    private let slots: Mutex<[Result<Double, CLIError>]>

    init(count: Int) {
        slots = Mutex([Result<Double, CLIError>](repeating: .failure(CLIError("a bench thread did not finish")), count: count))
    }

    func set(_ index: Int, _ value: Result<Double, CLIError>) {
        slots.withLock { $0[index] = value }
    }

    /// Every slot's value; throws the first failure.
    func values() throws(CLIError) -> [Double] {
        let all = slots.withLock { $0 }
        return try all.map { (slot) throws(CLIError) in try slot.get() }
    }
}
