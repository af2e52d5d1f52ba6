import Glibc
@testable import Essence2Runtime
@testable import Essence2Vision
@testable import Essence2Authoring

/// Paths and loaders for the TFLite tests: the project's models/ folder and Fixtures/tflite.
enum TFLiteFixtures {
    static let testsDirectory: String = {
        let file = #filePath
        return file.lastIndex(of: "/").map { String(file[..<$0]) } ?? "."
    }()

    /// models/ at the project root.
    static let modelsDirectory = testsDirectory + "/../../models"
    static let fixturesDirectory = testsDirectory + "/Fixtures/tflite"

    static let detectorFile = "face_detection_short_range.tflite"
    static let landmarkFile = "face_landmark.tflite"

    /// Whole contents of a file, or nil when it cannot be read.
    static func bytes(ofFile path: String) -> [UInt8]? {
        guard let f = fopen(path, "rb") else { return nil }
        defer { fclose(f) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
            if n == 0 { break }
            out.append(contentsOf: chunk[0..<n])
        }
        return out
    }

    static func model(_ name: String) -> [UInt8]? { bytes(ofFile: modelsDirectory + "/" + name) }

    /// The generator of tools/tflite_reference.py: lo + (hi - lo) * ((s >> 8) / 2^24), s = s * 1664525 + 1013904223.
    static func lcg(count: Int, seed: UInt32, lo: Float, hi: Float) -> [Float] {
        var s = seed
        return (0..<count).map { _ in
            s = s &* 1_664_525 &+ 1_013_904_223
            return lo + (hi - lo) * Float(Double(s >> 8) / 16_777_216.0)
        }
    }

    /// An RGB byte image upscaled (nearest) to size x size and mapped to [lo, hi], as the Python script does.
    static func rgb(_ bytes: [UInt8], width: Int, height: Int, size: Int, lo: Float, hi: Float) -> [Float] {
        var out = [Float]()
        out.reserveCapacity(size * size * 3)
        for y in 0..<size {
            let sy = y * height / size
            for x in 0..<size {
                let sx = x * width / size
                for c in 0..<3 { out.append(lo + (hi - lo) * (Float(bytes[(sy * width + sx) * 3 + c]) / 255)) }
            }
        }
        return out
    }
}
