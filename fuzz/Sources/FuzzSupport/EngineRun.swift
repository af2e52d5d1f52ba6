#if canImport(Glibc)
import Glibc
#endif
import Essence2Runtime

/// Drives an engine the way a host does, for the harnesses: frames are taken as the render thread makes them
/// (unpaced), waiting at most `patience` seconds in all; a frame that never comes is a finding (a hang).
package struct EngineRun {
    package let engine: Engine
    private var buffer: [UInt8]
    private let deadline: Int64
    package private(set) var framesTaken = 0

    package init(avatar: Avatar, mode: DisplayMode = .full, model: LipSyncModel = .learned, patience seconds: Int64 = 60) {
        engine = Engine(avatar: avatar)
        engine.setPacing(.unpaced)
        engine.setMode(mode)
        engine.setLipSyncModel(model)
        buffer = [UInt8](repeating: 0, count: max(engine.frameBytes, 1))
        deadline = SystemClock().nanoseconds() + seconds * 1_000_000_000
    }

    /// Takes the next frame (`idleOnly`: an idle one), waiting for the render thread; traps past the deadline.
    @discardableResult
    package mutating func takeFrame(idleOnly: Bool = false) -> Engine.TakenFrame? {
        if buffer.count < engine.frameBytes { buffer = [UInt8](repeating: 0, count: engine.frameBytes) }
        while true {
            let outcome = buffer.withUnsafeMutableBytes { engine.take(into: $0, idleOnly: idleOnly) }
            switch outcome {
            case .frame(let frame):
                framesTaken += 1
                precondition(frame.bytes == engine.frameBytes || frame.bytes <= buffer.count, "a frame larger than its buffer")
                return frame
            case .bufferTooSmall:
                buffer = [UInt8](repeating: 0, count: engine.frameBytes)
            case .refused(let reason):
                fatalError("an unmetered engine refused a frame: \(reason)")
            case .notDue:
                let health = engine.renderHealth
                precondition(health.failures == 0, "the engine failed to render: \(health.reason)")
                precondition(SystemClock().nanoseconds() < deadline, "no frame came within the harness's patience")
                usleep(200)
            }
        }
    }

    /// Takes a frame if one is due now; nil when none is.
    @discardableResult
    package mutating func tryFrame(idleOnly: Bool = false) -> Engine.TakenFrame? {
        if buffer.count < engine.frameBytes { buffer = [UInt8](repeating: 0, count: engine.frameBytes) }
        let outcome = buffer.withUnsafeMutableBytes { engine.take(into: $0, idleOnly: idleOnly) }
        if case .frame(let frame) = outcome {
            framesTaken += 1
            return frame
        }
        return nil
    }

    /// Stops the engine and waits for its render thread, so no thread outlives the input that started it.
    package func finish() {
        _ = engine.stop()
        precondition(engine.waitUntilStopped(deadline: SystemClock().nanoseconds() + 30_000_000_000),
                     "the render thread did not stop")
    }
}
