import Dispatch
import Essence2Runtime
import FoundationEssentials
import Glibc
import Synchronization

/// The measurements behind `essence2 bench`, each on engines the caller made.
enum BenchMeasure {
    /// A frame buffer for one engine, released by the caller.
    static func frameBuffer(_ engine: Engine) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer.allocate(byteCount: engine.frameBytes, alignment: 64)
    }

    /// Idle frames an engine keeps rendered ahead; taken before timing so that they do not count.
    static let idleAhead = 2

    /// Takes `count` idle frames (unpaced pacing) and returns the wall seconds it took, after first taking
    /// the frames rendered ahead (untimed) so that the time is that of rendering `count` frames.
    static func idle(_ engine: Engine, frames count: Int, into frame: UnsafeMutableRawBufferPointer) throws(CLIError) -> Double {
        _ = try idleUntimed(engine, frames: idleAhead, into: frame)
        return try idleUntimed(engine, frames: count, into: frame)
    }

    private static func idleUntimed(_ engine: Engine, frames count: Int, into frame: UnsafeMutableRawBufferPointer) throws(CLIError) -> Double {
        let started = Clock.now()
        var got = 0
        var lastFrame = started
        while got < count {
            if engine.idleFrame(into: frame) != nil {
                got += 1
                lastFrame = Clock.now()
            } else {
                if Clock.now() - lastFrame > OfflineRender.stallSeconds {
                    throw CLIError("the engine produced no idle frame for \(Int(OfflineRender.stallSeconds)) s")
                }
                usleep(100)
            }
        }
        return Clock.now() - started
    }

    /// One unpaced reply of `samples`.
    static func speech(_ engine: Engine, samples: [Int16], into frame: UnsafeMutableRawBufferPointer) throws(CLIError) -> OfflineRender.Result {
        try samples.withUnsafeBufferPointer { (buffer) throws(CLIError) in
            try OfflineRender.run(engine: engine, samples: buffer, frame: frame) { (_: FrameKind, _: Int) throws(CLIError) in }
        }
    }

    /// Unpaced, engine at rest: pushes `samples` 20 ms at a time, giving the engine up to `wait` seconds after
    /// each push to hand out a speech frame; returns the samples pushed when the first one came. The reply
    /// is then ended and taken to its end.
    static func samplesBeforeFirstSpeech(_ engine: Engine, samples: [Int16], wait: Double,
                                         into frame: UnsafeMutableRawBufferPointer) throws(CLIError) -> Int {
        let chunk = 320
        var pushed = 0
        var found: Int?
        samples.withUnsafeBufferPointer { buffer in
            while found == nil && pushed < buffer.count {
                let count = min(chunk, buffer.count - pushed)
                guard engine.pushAudio(UnsafeBufferPointer(rebasing: buffer[pushed..<(pushed + count)])) else { break }
                pushed += count
                let deadline = Clock.now() + wait
                while Clock.now() < deadline {
                    if let kind = engine.pullFrame(into: frame) {
                        if kind == .speech { found = pushed; break }
                    } else {
                        usleep(200)
                    }
                }
            }
        }
        engine.endUtterance()
        try drainToRest(engine, into: frame)
        guard let found else { throw CLIError("no speech frame came after \(pushed) samples of speech") }
        return found
    }

    /// Realtime pacing on a fresh engine: streams `samples` at real-time speed in 20 ms packets and returns
    /// the wall seconds from the first packet to the first speech frame handed out.
    static func realtimeLatency(avatar: Avatar, samples: [Int16]) throws(CLIError) -> Double {
        let engine = Engine(avatar: avatar)
        defer { engine.stop() }
        let frame = frameBuffer(engine)
        defer { frame.deallocate() }
        // Warm up: three idle frames handed out.
        var idle = 0
        let warmStart = Clock.now()
        while idle < 3 {
            if engine.idleFrame(into: frame) != nil { idle += 1 } else { usleep(1000) }
            if Clock.now() - warmStart > OfflineRender.stallSeconds { throw CLIError("the engine produced no idle frame") }
        }
        let packet = 320
        var pushed = 0
        let started = Clock.now()
        let result: Double? = samples.withUnsafeBufferPointer { buffer in
            while Clock.now() - started < 5 {
                let arrived = min(buffer.count, (Int((Clock.now() - started) / 0.02) + 1) * packet)
                while pushed < arrived {
                    let count = min(packet, arrived - pushed)
                    guard engine.pushAudio(UnsafeBufferPointer(rebasing: buffer[pushed..<(pushed + count)])) else { break }
                    pushed += count
                }
                if engine.pullFrame(into: frame) == .speech { return Clock.now() - started }
                usleep(1000)
            }
            return nil
        }
        engine.reset()
        guard let result else { throw CLIError("no speech frame within 5 s in realtime pacing") }
        return result
    }

    /// Takes frames until an idle one comes (the reply, if any, is over).
    static func drainToRest(_ engine: Engine, into frame: UnsafeMutableRawBufferPointer) throws(CLIError) {
        var lastFrame = Clock.now()
        while true {
            if let kind = engine.pullFrame(into: frame) {
                if kind == .idle { return }
                lastFrame = Clock.now()
            } else {
                if Clock.now() - lastFrame > OfflineRender.stallSeconds { throw CLIError("the engine stopped handing out frames") }
                usleep(100)
            }
        }
    }

    /// The median time of one memcpy of `bytes` bytes between two buffers (both touched first).
    static func frameCopySeconds(bytes: Int) -> Double {
        let source = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes, alignment: 64)
        let target = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes, alignment: 64)
        defer { source.deallocate(); target.deallocate() }
        memset(source.baseAddress!, 0x5a, bytes)
        memset(target.baseAddress!, 0, bytes)
        var times: [Double] = []
        let started = Clock.now()
        while times.count < 25 || (times.count < 1000 && Clock.now() - started < 0.3) {
            let t0 = Clock.now()
            memcpy(target.baseAddress!, source.baseAddress!, bytes)
            times.append(Clock.now() - t0)
        }
        return Statistics.median(times)
    }

    /// Runs `body(index)` on `count` threads started together; returns the wall seconds from the start
    /// until all are done and each body's result (the first error, if any body failed).
    static func parallel(_ count: Int, _ body: @escaping @Sendable (Int) throws(CLIError) -> Double) throws(CLIError) -> (wall: Double, results: [Double]) {
        let results = ThreadResults(count: count)
        let ready = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        for index in 0..<count {
            try PosixThread.start {
                ready.signal()
                go.wait()
                let value: Result<Double, CLIError>
                do throws(CLIError) { value = .success(try body(index)) } catch { value = .failure(error) }
                results.set(index, value)
                done.signal()
            }
        }
        for _ in 0..<count { ready.wait() }
        let started = Clock.now()
        for _ in 0..<count { go.signal() }
        for _ in 0..<count { done.wait() }
        let wall = Clock.now() - started
        return (wall, try results.values())
    }
}
