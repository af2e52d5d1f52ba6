import Essence2Runtime
import Glibc

/// The cost of drawing frames alone, per frame, on the bench's avatar at its own size: the renderer (a
/// character's `CharacterRenderer` or a portrait's `Renderer`) drawing a sweep of mouth shapes and idle poses
/// into one buffer, as the render thread does, timed in the thread's own CPU time (so other load on the machine
/// does not count); the median of `repetitions` runs of 100 frames. The renderer splits a frame into bands over
/// the cores, so this is all cores' work for one frame.
struct BenchRenderAlone: Codable {
    var width: Int
    var height: Int
    var cpuSecondsPerFrame: Double

    static func measure(_ avatar: Avatar, repetitions: Int) -> BenchRenderAlone {
        let renderer = avatar.makeRenderer()
        let bytes = avatar.width * avatar.height * 3
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes, alignment: 64)
        defer { buffer.deallocate() }
        let motion = IdleMotion(seed: avatar.seed)
        let poses = ArticulationSweep.poses.map(\.articulation)
        func params(_ k: Int) -> FrameParams {
            FrameParams(articulation: poses[k % poses.count], pose: motion.pose(at: avatar.cadence.motionFrame(k * 3)))
        }
        var drawn = renderer.render(params(0), mode: .full, into: buffer, over: nil)
        var times: [Double] = []
        for _ in 0..<max(1, repetitions) {
            let start = processCPUSeconds()
            for k in 0..<100 { drawn = renderer.render(params(k), mode: .full, into: buffer, over: drawn) }
            times.append((processCPUSeconds() - start) / 100)
        }
        return BenchRenderAlone(width: avatar.width, height: avatar.height, cpuSecondsPerFrame: Statistics.median(times))
    }

    /// CPU seconds of the whole process (every thread: the renderer's bands run on the shared pool).
    static func processCPUSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
