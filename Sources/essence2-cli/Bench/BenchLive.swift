import Essence2Runtime
import Glibc

/// `essence2 bench --live N`: N engines in realtime pacing at once, each fed like a live voice (20 ms chunks on
/// the wall clock: the speech, 1 s of silence, again) and pulled by its own host loop, for a while; then how
/// many frames each showed and how many it had to skip (late frames and re-anchored slots): zero skipped means
/// the machine kept every engine on time.
enum BenchLive {
    struct Result {
        var engines: Int
        var seconds: Double
        var framesPerEngine: ClosedRange<Int>
        var skipped: Int64
        var reanchored: Int64
        var cpuPercent: Double
    }

    static func run(avatar: Avatar, engines count: Int, seconds: Double, speech: [Int16]) throws(CLIError) -> Result {
        let engines = (0..<count).map { _ in Engine(avatar: avatar) }
        defer { for engine in engines { engine.stop() } }
        let cpuBefore = Self.cpuSeconds()
        let frames = ThreadResults(count: count)
        let (wall, _) = try BenchMeasure.parallel(count) { (index) throws(CLIError) in
            let engine = engines[index]
            let frame = BenchMeasure.frameBuffer(engine)
            defer { frame.deallocate() }
            let started = Clock.now()
            var pushed = 0, shown = 0
            let cycle = speech.count + StreamFormat.sampleRate  // the speech, then a second of silence
            while Clock.now() - started < seconds {
                // The live source: audio due by now, 20 ms at a time; the reply ends with its audio.
                let due = Int((Clock.now() - started) * Double(StreamFormat.sampleRate))
                while pushed + 320 <= due {
                    let offset = pushed % cycle
                    if offset < speech.count {
                        let count = min(320, speech.count - offset)
                        let queued = speech.withUnsafeBufferPointer {
                            engine.pushAudio(UnsafeBufferPointer(rebasing: $0[offset..<(offset + count)]))
                        }
                        if !queued { break }
                        if offset + count == speech.count { engine.endUtterance() }
                        pushed += count
                    } else {
                        pushed += 320
                    }
                }
                if engine.pullFrame(into: frame) != nil { shown += 1 }
                usleep(4_000)
            }
            frames.set(index, .success(Double(shown)))
            return Double(shown)
        }
        let shown = try frames.values().map { Int($0) }
        let cpu = (Self.cpuSeconds() - cpuBefore) / wall * 100
        return Result(engines: count, seconds: seconds, framesPerEngine: (shown.min() ?? 0)...(shown.max() ?? 0),
                      skipped: engines.reduce(0) { $0 + $1.skippedFrames },
                      reanchored: engines.reduce(0) { $0 + $1.reanchorSlots }, cpuPercent: cpu)
    }

    /// User + system CPU seconds of this process so far.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }
}
