import Essence2Kit
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Stands in for a sound card in this example: it "plays" from `play()` on, at the wall clock's pace. A real
/// player reports its device's played-sample count instead (see `essence2 play`).
final class ClockPlayout: Essence2Playout {
    private let started = Mutex<Double?>(nil)

    func play() {
        started.withLock { $0 = $0 ?? Self.now() }
    }

    var secondsPlayed: Double? {
        started.withLock { $0 }.map { Self.now() - $0 }
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
