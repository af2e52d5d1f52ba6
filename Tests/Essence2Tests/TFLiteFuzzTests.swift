import Testing
@testable import Essence2Runtime
@testable import Essence2Vision
@testable import Essence2Authoring

/// Truncated and bit-flipped model files (fixed seed, fixed counts) must load as a `TFLiteError` or as a model
/// that runs; nothing may trap, hang or read out of bounds.
@Suite struct TFLiteFuzzTests {
    /// xorshift64*, so the mutations are the same on every run.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            return state &* 2_685_821_657_736_338_717
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    }

    /// Loads `bytes`; when that succeeds, runs the model once on a constant input. Returns whether it loaded.
    static func loadAndMaybeRun(_ bytes: [UInt8], run: Bool) -> Bool {
        guard let model = try? TFLiteModel(bytes: bytes) else { return false }
        if run, var interpreter = try? TFLiteInterpreter(model: model) {
            let inputs = model.inputShapes.map { TFLiteTensor(shape: $0, values: .init(repeating: 0.5, count: $0.reduce(1, *))) }
            _ = try? interpreter.invoke(inputs)
        }
        return true
    }

    /// A byte to mutate: half of them uniformly over the file (mostly weight data), half in its first 4 KiB
    /// (root, buffer tables) or its last 32 KiB (operators, tensors, shapes, names, vtables of these models).
    static func position(_ g: inout Generator, count: Int) -> Int {
        switch g.below(4) {
        case 0: return g.below(Swift.min(count, 4096))
        case 1: return count - 1 - g.below(Swift.min(count, 32768))
        default: return g.below(count)
        }
    }

    @Test(arguments: [TFLiteFixtures.detectorFile, TFLiteFixtures.landmarkFile])
    func truncatedModelFilesAreRejectedWithoutCrashing(_ name: String) throws {
        let bytes = try #require(TFLiteFixtures.model(name))
        var g = Generator(state: 0x9E37_79B9_7F4A_7C15)
        var loaded = 0
        for i in 0..<300 {
            let cut = i < 20 ? i : g.below(bytes.count)
            if Self.loadAndMaybeRun(Array(bytes[..<cut]), run: false) { loaded += 1 }
        }
        #expect(loaded == 0)
        #expect(Self.loadAndMaybeRun(bytes, run: false))
    }

    @Test(arguments: [TFLiteFixtures.detectorFile, TFLiteFixtures.landmarkFile])
    func bitAndByteFlippedModelFilesLoadAsErrorsOrAsRunnableModels(_ name: String) throws {
        let original = try #require(TFLiteFixtures.model(name))
        var g = Generator(state: name == TFLiteFixtures.detectorFile ? 12345 : 67890)
        var rejected = 0, runs = 0
        for i in 0..<300 {
            var bytes = original
            for _ in 0...g.below(3) {
                let at = Self.position(&g, count: bytes.count)
                if i % 2 == 0 {
                    bytes[at] ^= UInt8(1 << g.below(8))
                } else {
                    bytes[at] = UInt8(truncatingIfNeeded: g.next())
                }
            }
            // Runs are the slow part: run the detector's survivors, and every 10th of the landmark model's.
            let run = name == TFLiteFixtures.detectorFile ? runs < 60 : i % 10 == 0
            if Self.loadAndMaybeRun(bytes, run: run) {
                if run { runs += 1 }
            } else {
                rejected += 1
            }
        }
        #expect(rejected > 0)
    }
}
