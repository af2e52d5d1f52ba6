import Essence2Runtime

/// The cost of audio-to-articulation alone, per 40 ms frame, for each lip-sync model: the whole speech
/// appended to a fresh stream, then every frame taken, on one thread; the median of `repetitions` runs.
struct BenchLipSync: Codable {
    var model: String
    var frames: Int
    var secondsPerFrame: Double

    static func measure(_ samples: [Int16], repetitions: Int) -> [BenchLipSync] {
        LipSyncModel.allCases.map { model in
            var times: [Double] = []
            var frames = 0
            // One untimed run first: the learned model's weights are decoded on first use.
            for rep in 0...max(1, repetitions) {
                var stream = LipSyncStream(model: model)
                let start = Clock.now()
                samples.withUnsafeBufferPointer { stream.append($0) }
                frames = 0
                while stream.nextFrame(flush: true) != nil { frames += 1 }
                if rep > 0 { times.append((Clock.now() - start) / Double(max(frames, 1))) }
            }
            return BenchLipSync(model: model == .learned ? "learned" : "v1", frames: frames,
                                secondsPerFrame: Statistics.median(times))
        }
    }
}
