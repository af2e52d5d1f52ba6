import FuzzSupport

/// What the mutants did: refused by the reader, or read and validated, and of those how many distinct files
/// were rendered. Printed at exit.
enum ImxStatistics {
    static let refusedCount = FuzzCounter("imx mutants refused")
    static let acceptedCount = FuzzCounter("imx mutants read")
    static let renderedCount = FuzzCounter("imx distinct survivors rendered")

    static func refused() { refusedCount.add() }

    static func accepted() { acceptedCount.add() }

    static func rendered() { renderedCount.add() }
}
