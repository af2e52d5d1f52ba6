/// Why a weights file (`NeuralWeights`, the E2NW format) could not be read or does not fit the network reading it.
package struct NeuralWeightsError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong, in words.
    package let reason: String

    package init(_ reason: String) { self.reason = reason }

    package var description: String { reason }
}
