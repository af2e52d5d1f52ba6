import Testing
@testable import Essence2Authoring
@testable import Essence2Runtime

/// The E2NW weights container (`NeuralWeights`): round trips, and every kind of damage thrown, never trapped.
@Suite struct NeuralWeightsTests {
    static let sample = NeuralWeights(kind: "essence2-test", tensors: [
        ("count", NeuralTensor(shape: [], ints: [3])),
        ("weights", NeuralTensor(shape: [2, 3], floats: [1, -2, 0.5, 0, 1e-20, -3e30])),
        ("halves", NeuralTensor(shape: [4], floats: [1, -2, 0.333251953125, 65504], element: .float16)),
        ("order", NeuralTensor(shape: [1, 1, 2], ints: [-7, Int32.max])),
    ])

    static func put(_ v: UInt32) -> [UInt8] { [UInt8(v & 255), UInt8(v >> 8 & 255), UInt8(v >> 16 & 255), UInt8(v >> 24)] }

    /// A file whose one tensor has the given header fields and raw value bytes.
    static func oneTensor(name: [UInt8] = Array("t".utf8), element: UInt32 = 1, shape: [UInt32], values: [UInt8],
                          version: UInt32 = 1, kind: [UInt8] = Array("k".utf8)) -> [UInt8] {
        var bytes = Array("E2NW".utf8) + put(version) + put(UInt32(kind.count)) + kind + put(1)
        bytes += put(UInt32(name.count)) + name + put(element) + put(UInt32(shape.count))
        for extent in shape { bytes += put(extent) }
        return bytes + values
    }

    @Test func aFileReadsBackAsWritten() throws {
        let bytes = Self.sample.bytes
        let read = try NeuralWeights(bytes: bytes)
        #expect(read == Self.sample)
        #expect(read.bytes == bytes)
        #expect(read.names == ["count", "weights", "halves", "order"])
        #expect(try read.int("count") == 3)
        #expect(try read.floats("weights", shape: [2, 3]) == [1, -2, 0.5, 0, 1e-20, -3e30])
        #expect(try read.floats("halves", shape: [4]) == [1, -2, 0.333251953125, 65504])
        #expect(read.tensors["halves"]?.element == .float16)
        #expect(try read.ints("order", count: 2) == [-7, Int(Int32.max)])
        try read.expect(kind: "essence2-test")
        // 4 magic + 4 version + 4 + 13 kind + 4 count, then per tensor 4 + name + 4 element + 4 rank + 4 per extent.
        #expect(bytes.count == 29 + (4 + 5 + 8) + 4 + (4 + 7 + 8 + 8) + 24 + (4 + 6 + 8 + 4) + 8 + (4 + 5 + 8 + 12) + 8)
    }

    @Test func theShippedWeightsFilesRoundTrip() throws {
        for bytes in [ShippedWeights.bytes, CharacterNetwork.embeddedBytes, CharacterNetwork.embeddedRefinerBytes] {
            #expect(try NeuralWeights(bytes: bytes).bytes == bytes)
        }
    }

    @Test func accessorsThrowForMissingOrMisshapenTensors() throws {
        let read = try NeuralWeights(bytes: Self.sample.bytes)
        #expect(throws: NeuralWeightsError("tensor 'nothing' is missing")) { try read.tensor("nothing") }
        #expect(throws: NeuralWeightsError.self) { try read.floats("weights", shape: [3, 2]) }
        #expect(throws: NeuralWeightsError.self) { try read.floats("count", shape: []) }
        #expect(throws: NeuralWeightsError.self) { try read.ints("weights") }
        #expect(throws: NeuralWeightsError.self) { try read.ints("order", count: 3) }
        #expect(throws: NeuralWeightsError.self) { try read.expect(kind: "essence2-lipsync") }
    }

    @Test func everyShorterPrefixThrows() {
        let bytes = Self.sample.bytes
        for end in 0..<bytes.count {
            #expect(throws: NeuralWeightsError.self, "prefix of \(end) bytes") { try NeuralWeights(bytes: Array(bytes[..<end])) }
        }
        #expect(throws: NeuralWeightsError.self) { try NeuralWeights(bytes: bytes + [0]) }
    }

    /// Every byte of a small file set to other values, and random bytes of the refiner's file flipped: each reads
    /// or throws, none traps.
    @Test func mutatedFilesReadOrThrow() {
        let bytes = Self.sample.bytes
        for i in bytes.indices {
            for value: UInt8 in [0, 1, 0x7F, 0x80, 0xFF, bytes[i] ^ 0x40] {
                var mutated = bytes
                mutated[i] = value
                _ = try? NeuralWeights(bytes: mutated)
            }
        }
        let refiner = CharacterNetwork.embeddedRefinerBytes
        var state: UInt64 = 99
        for _ in 0..<200 {
            var mutated = refiner
            for _ in 0..<3 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                mutated[Int(state >> 33) % mutated.count] ^= UInt8(truncatingIfNeeded: state >> 17) | 1
            }
            _ = try? CharacterNetwork(bytes: mutated, outputs: CharacterNetwork.refinerOutputs)
        }
    }

    @Test func craftedHeadersThrowBeforeAnyAllocation() {
        let four = Self.put(Float(1).bitPattern)
        #expect((try? NeuralWeights(bytes: Self.oneTensor(shape: [1], values: four))) != nil)
        let bad: [(String, [UInt8])] = [
            ("magic", Array("E2NX".utf8) + Array(Self.oneTensor(shape: [1], values: four).dropFirst(4))),
            ("version", Self.oneTensor(shape: [1], values: four, version: 2)),
            ("empty kind", Self.oneTensor(shape: [1], values: four, kind: [])),
            ("kind not UTF-8", Self.oneTensor(shape: [1], values: four, kind: [0xFF, 0xFE])),
            ("name too long", Self.oneTensor(name: [UInt8](repeating: 65, count: 129), shape: [1], values: four)),
            ("empty name", Self.oneTensor(name: [], shape: [1], values: four)),
            ("element 0", Self.oneTensor(element: 0, shape: [1], values: four)),
            ("element 4", Self.oneTensor(element: 4, shape: [1], values: four)),
            ("rank 7", Self.oneTensor(shape: [1, 1, 1, 1, 1, 1, 1], values: four)),
            ("extent 0", Self.oneTensor(shape: [0], values: [])),
            ("huge extent", Self.oneTensor(shape: [0xFFFF_FFFF], values: four)),
            ("huge product", Self.oneTensor(shape: [1 << 16, 1 << 16, 1 << 16], values: four)),
            ("more values than bytes", Self.oneTensor(shape: [1 << 20], values: four)),
            ("NaN", Self.oneTensor(shape: [1], values: Self.put(Float.nan.bitPattern))),
            ("infinity", Self.oneTensor(shape: [1], values: Self.put(Float.infinity.bitPattern))),
            ("half infinity", Self.oneTensor(element: 2, shape: [2], values: [0, 0x3C, 0, 0x7C])),
            ("half NaN", Self.oneTensor(element: 2, shape: [1], values: [1, 0x7E])),
            ("old E2LS", Array("E2LS".utf8) + Self.put(2) + Self.put(1)),
            ("old E2CP", Array("E2CP".utf8) + Self.put(2)),
        ]
        for (what, bytes) in bad {
            #expect(throws: NeuralWeightsError.self, "\(what)") { try NeuralWeights(bytes: bytes) }
        }
        var twice = Array("E2NW".utf8) + Self.put(1) + Self.put(1) + Array("k".utf8) + Self.put(2)
        for _ in 0..<2 { twice += Self.put(1) + Array("t".utf8) + Self.put(3) + Self.put(0) + Self.put(5) }
        #expect(throws: NeuralWeightsError("tensor 't' appears twice")) { try NeuralWeights(bytes: twice) }
        var tooMany = Array("E2NW".utf8) + Self.put(1) + Self.put(1) + Array("k".utf8) + Self.put(5000)
        tooMany += [UInt8](repeating: 0, count: 64)
        #expect(throws: NeuralWeightsError.self) { try NeuralWeights(bytes: tooMany) }
        do {
            _ = try NeuralWeights(bytes: Array("E2LS".utf8) + Self.put(2))
        } catch {
            #expect(error.reason.contains("tools/convert_weights.py"))
        }
    }
}
