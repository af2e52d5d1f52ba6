import Synchronization

/// A count a harness keeps of what its inputs did (read or refused, rendered), printed when the run ends.
package final class FuzzCounter: Sendable {
    private let label: String
    private let value = Atomic<Int>(0)

    package init(_ label: String) {
        self.label = label
        FuzzReport.register(self)
    }

    package func add(_ amount: Int = 1) {
        value.add(amount, ordering: .relaxed)
    }

    package var line: String { "\(label): \(value.load(ordering: .relaxed))" }
}
