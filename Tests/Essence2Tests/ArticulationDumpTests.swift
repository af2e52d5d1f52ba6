import FoundationEssentials
import Testing
@testable import Essence2Runtime

/// With ARTICULATION_DUMP_DIR set: every 16 kHz mono 16-bit WAV in it through the learned lip-sync stream, the
/// frames' articulation written beside it as NAME.artic.json ([[jaw, spread, press, level, pitch], ...]).
@Suite struct ArticulationDumpTests {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["ARTICULATION_DUMP_DIR"] != nil))
    func dumpArticulation() throws {
        let dir = try #require(ProcessInfo.processInfo.environment["ARTICULATION_DUMP_DIR"])
        var clips = 0
        for file in try FileManager.default.contentsOfDirectory(atPath: dir).filter({ $0.hasSuffix(".wav") }).sorted() {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(dir)/\(file)")))
            var offset = 12
            var samples: [Int16] = []
            while offset + 8 <= bytes.count {
                let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
                let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
                if id == "data" {
                    let end = min(bytes.count, offset + 8 + size)
                    var i = offset + 8
                    while i + 1 < end {
                        samples.append(Int16(bitPattern: UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8))
                        i += 2
                    }
                    break
                }
                offset += 8 + size + (size & 1)
            }
            var stream = LipSyncStream()
            samples.withUnsafeBufferPointer { stream.append($0) }
            var rows: [String] = []
            while let a = stream.nextFrame(flush: true) {
                let cue = stream.lastCue
                rows.append("[\(a.jawOpen), \(a.lipSpread), \(a.lipPress), \(cue.level), \(cue.pitch)]")
            }
            // Every 640 samples make a frame, and the flushed tail one more.
            #expect(rows.count == (samples.count + 639) / 640, "\(file): \(rows.count) frames of \(samples.count) samples")
            let name = String(file.dropLast(4))
            try Data(("[" + rows.joined(separator: ",\n") + "]").utf8).write(to: URL(fileURLWithPath: "\(dir)/\(name).artic.json"))
            clips += 1
        }
        #expect(clips > 0, "no .wav in \(dir)")
    }
}
