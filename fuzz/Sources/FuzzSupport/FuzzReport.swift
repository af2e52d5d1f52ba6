#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Prints the harness's counters when the process exits (after libFuzzer's own figures).
package enum FuzzReport {
    private static let counters = Mutex<[FuzzCounter]>([])

    static func register(_ counter: FuzzCounter) {
        let first = counters.withLock { list in
            list.append(counter)
            return list.count == 1
        }
        if first { atexit { FuzzReport.printCounters() } }
    }

    private static func printCounters() {
        for counter in counters.withLock({ $0 }) { print(counter.line) }
    }
}
