/// Everything `essence2 bench` measured, as printed (table) or emitted (`--json`).
struct BenchReport: Codable {
    var version: String
    var avatar: String
    /// The speech rendered: a file path or "synthetic".
    var speech: String
    var speechSeconds: Double
    var cpus: Int
    var repetitions: Int
    var runs: [BenchRun]
    /// Audio to articulation alone, per model.
    var lipSync: [BenchLipSync]
    /// The learned lip-sync model's size.
    var lipSyncModel = BenchLipSyncModel()
    /// Drawing alone, the avatar at its own size.
    var renderAlone: BenchRenderAlone?

    /// The run for a canvas and engine count.
    func run(width: Int, height: Int, engines: Int) -> BenchRun? {
        runs.first { $0.width == width && $0.height == height && $0.engines == engines }
    }

    /// The table: one column per avatar size.
    func table() -> String {
        var sizes: [(Int, Int)] = []
        for run in runs where !sizes.contains(where: { $0 == (run.width, run.height) }) { sizes.append((run.width, run.height)) }
        func x(_ value: Double) -> String { Formatting.fixed(value, digits: value < 10 ? 2 : 1) + "x" }
        func mib(_ bytes: Int) -> String { Formatting.fixed(Double(bytes) / 1_048_576, digits: 0) + " MiB" }
        func ms(_ seconds: Double) -> String { Formatting.fixed(seconds * 1000, digits: 1) + " ms" }
        func cell(_ engines: Int, _ body: (BenchRun) -> String) -> [String] {
            sizes.map { size in run(width: size.0, height: size.1, engines: engines).map(body) ?? "-" }
        }
        var rows: [[String]] = []
        rows.append(["", "unit"] + sizes.map { "\($0.0)x\($0.1)" })
        rows.append(["speech, 1 engine", "x real time"] + cell(1) { x($0.speechRealTime) })
        rows.append(["speech, 4 engines", "x real time, all (each)"] + cell(4) { "\(x($0.speechRealTime)) (\(x($0.speechRealTimePerEngine)))" })
        rows.append(["idle, 1 engine", "x real time"] + cell(1) { x($0.idleRealTime) })
        rows.append(["idle, 4 engines", "x real time, all (each)"] + cell(4) { "\(x($0.idleRealTime)) (\(x($0.idleRealTimePerEngine)))" })
        rows.append(["peak memory, 1 engine", "VmHWM (before engine)"] + cell(1) { "\(mib($0.peakBytes)) (\(mib($0.baselineBytes)))" })
        rows.append(["peak memory, 4 engines", "VmHWM (before engines)"] + cell(4) { "\(mib($0.peakBytes)) (\(mib($0.baselineBytes)))" })
        rows.append(["first speech frame, unpaced", "wall time"] + cell(1) { $0.latency.map { ms($0.unpacedSeconds) } ?? "-" })
        rows.append(["first speech frame, unpaced", "audio pushed"] + cell(1) {
            $0.latency.map { "\($0.unpacedSamples) samples (\(ms(Double($0.unpacedSamples) / 16000)))" } ?? "-"
        })
        rows.append(["first speech frame, realtime", "wall time, audio at 1x"] + cell(1) { $0.latency.map { ms($0.realtimeSeconds) } ?? "-" })
        rows.append(["frame copy (memcpy, warm cache)", "per frame (x real time)"] + cell(1) {
            $0.frameCopySeconds.map { Formatting.fixed($0 * 1e6, digits: 0) + " us (" + Formatting.fixed(0.04 / max($0, 1e-9), digits: 0) + "x)" } ?? "-"
        })
        let header = "essence2 bench \(version): avatar \(avatar), speech \(speech) (\(Formatting.fixed(speechSeconds, digits: 1)) s), "
            + "\(cpus) CPU\(cpus == 1 ? "" : "s"), "
            + (repetitions == 1 ? "1 run\n" : "medians of \(repetitions) runs\n")
        let frames = sizes.map { size in
            "\(size.0)x\(size.1) " + [1, 4].map { engines in
                run(width: size.0, height: size.1, engines: engines).map { String($0.replyFrames) } ?? "-"
            }.joined(separator: " / ")
        }
        let lipSyncCost = lipSync.map { "\($0.model) \(Formatting.fixed($0.secondsPerFrame * 1000, digits: 3)) ms" }
        let lines: [String] = [
            "x real time = video seconds made per wall second (frames / the avatar's frames a second / wall s), unpaced pacing.",
            "Frames per reply (1 / 4 engines; the speech is shortened on slow machines): \(frames.joined(separator: ", ")).",
            "Memory: one process per column and engine count; VmHWM is its peak resident set.",
            "Lip sync alone (audio to articulation, one thread, per 40 ms frame): \(lipSyncCost.joined(separator: ", "))",
            renderAlone.map { "Drawing alone (\($0.width)x\($0.height), CPU time of all threads per frame): "
                + "\(Formatting.fixed($0.cpuSecondsPerFrame * 1000, digits: 3)) ms" } ?? "",
            "Learned lip-sync model: \(lipSyncModel.members) networks averaged, \(lipSyncModel.values) values, "
                + "\(lipSyncModel.bytes) bytes of half-precision weights embedded in the library.",
        ]
        let footer = "\n\n" + lines.filter { !$0.isEmpty }.joined(separator: "\n")
        return header + "\n" + TextTable.render(rows) + footer
    }
}
