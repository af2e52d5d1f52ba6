import Foundation
import Testing
@testable import Essence2Authoring
@testable import Essence2Runtime

/// Characters drawn by tools/character/draw.py (seed 999, never trained on; tools/character/make_fixtures.py):
/// 128 x 128 raw RGBA bytes and their true points.
enum CharacterFixture {
    static let directory: String = {
        let file = #filePath
        let cut = file.lastIndex(of: "/").map { String(file[..<$0]) } ?? "."
        return cut + "/Fixtures/characters"
    }()

    /// The drawn fixtures whose eye distance is at least 18 px of 128 (make_fixtures.py's default list).
    static let names = ["drawn_0", "drawn_2", "drawn_9", "drawn_13"]

    struct Picture {
        var bgr: [UInt8]
        var alpha: [UInt8]
        var width, height: Int
    }

    /// RGBA bytes split into BGR and alpha.
    static func split(_ rgba: [UInt8], width: Int, height: Int) -> Picture {
        var bgr = [UInt8](repeating: 0, count: width * height * 3), alpha = [UInt8](repeating: 0, count: width * height)
        for i in 0..<(width * height) {
            bgr[3 * i] = rgba[4 * i + 2]
            bgr[3 * i + 1] = rgba[4 * i + 1]
            bgr[3 * i + 2] = rgba[4 * i]
            alpha[i] = rgba[4 * i + 3]
        }
        return Picture(bgr: bgr, alpha: alpha, width: width, height: height)
    }

    static func json(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func point(_ any: Any?) -> SIMD2<Float>? {
        guard let a = any as? [Double], a.count == 2 else { return nil }
        return SIMD2(Float(a[0]), Float(a[1]))
    }

    static func load(_ name: String) throws -> (Picture, [String: Any]) {
        let info = try json("\(directory)/\(name).json")
        let width = try #require(info["width"] as? Int), height = try #require(info["height"] as? Int)
        let rgba = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(name).rgba")))
        try #require(rgba.count == width * height * 4)
        return (split(rgba, width: width, height: height), info)
    }
}

@Suite struct CharacterPointFinderTests {
    /// The bar set for the finder: every eye and mouth point within 0.15 eye distances on drawn characters never
    /// trained on (the heatmap weights: median 0.148 on 100 such scenes, 79 % within 0.25; tools/character/README.md).
    @Test(arguments: CharacterFixture.names)
    func drawnCharacterPointsNearTheTruth(name: String) throws {
        let (picture, truth) = try CharacterFixture.load(name)
        let found = try CharacterPointFinder.find(bgr: picture.bgr, alpha: picture.alpha, width: picture.width,
                                                  height: picture.height)
        let leftEye = try #require(CharacterFixture.point(truth["left_eye"]))
        let rightEye = try #require(CharacterFixture.point(truth["right_eye"]))
        let eyeDistance = ((rightEye - leftEye) * (rightEye - leftEye)).sum().squareRoot()
        var worst: Float = 0
        for (key, p) in Self.eyeAndMouth(found) {
            let t = try #require(CharacterFixture.point(truth[key]))
            let error = ((p - t) * (p - t)).sum().squareRoot() / eyeDistance
            worst = max(worst, error)
            #expect(error <= 0.25, "\(name) \(key): \(p) vs \(t), \(error) eye distances")
        }
        #expect(worst <= 0.15, "\(name): worst point \(worst) eye distances")
        #expect(found.points.outline.count == 16)
        #expect((0...1).contains(found.confidence))
    }

    /// The Swift finder takes the same steps as tools/character/evaluate.py's Python one (the crop sampler, the
    /// network from the same weights, the passes): their points agree (the fixture's "reference").
    @Test(arguments: CharacterFixture.names)
    func swiftFinderMatchesThePythonReference(name: String) throws {
        let (picture, truth) = try CharacterFixture.load(name)
        let reference = try #require(truth["reference"] as? [String: Any])
        let found = try CharacterPointFinder.find(bgr: picture.bgr, alpha: picture.alpha, width: picture.width,
                                                  height: picture.height)
        for (key, p) in Self.eyeAndMouth(found) {
            let r = try #require(CharacterFixture.point(reference[key]))
            #expect(((p - r) * (p - r)).sum().squareRoot() < 0.05, "\(name) \(key): \(p) vs \(r)")
        }
        let confidence = try #require(reference["confidence"] as? Double)
        #expect(abs(Double(found.confidence) - confidence) < 0.01)
    }

    static func eyeAndMouth(_ finding: CharacterFinding) -> [(String, SIMD2<Float>)] {
        let p = finding.points
        return [("left_eye", p.leftEye), ("right_eye", p.rightEye), ("mouth_left", p.mouthLeft),
                ("mouth_right", p.mouthRight), ("mouth_center", p.mouthCenter)]
    }

    @Test func blankAndNoisePicturesGiveLowConfidence() throws {
        let width = 200, height = 150
        let white = [UInt8](repeating: 255, count: width * height * 3)
        let blank = try CharacterPointFinder.find(bgr: white, alpha: nil, width: width, height: height)
        #expect(blank.confidence < CharacterPointFinder.lowConfidence, "blank: \(blank.confidence)")
        let clear = try CharacterPointFinder.find(bgr: white, alpha: [UInt8](repeating: 0, count: width * height),
                                                  width: width, height: height)
        #expect(clear.confidence < CharacterPointFinder.lowConfidence, "transparent: \(clear.confidence)")
        var state: UInt32 = 12345
        let noise = (0..<(width * height * 3)).map { _ -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        let garbage = try CharacterPointFinder.find(bgr: noise, alpha: nil, width: width, height: height)
        #expect(garbage.confidence < CharacterPointFinder.lowConfidence, "noise: \(garbage.confidence)")
    }

    @Test func wrongSizedBuffersThrow() {
        #expect(throws: CharacterPointFinderError.self) {
            try CharacterPointFinder.find(bgr: [UInt8](repeating: 0, count: 10), alpha: nil, width: 4, height: 4)
        }
        #expect(throws: CharacterPointFinderError.self) {
            try CharacterPointFinder.find(bgr: [UInt8](repeating: 0, count: 48), alpha: [0, 1, 2], width: 4, height: 4)
        }
        #expect(throws: CharacterPointFinderError.self) {
            try CharacterPointFinder.find(bgr: [], alpha: nil, width: 0, height: 0)
        }
    }

    @Test func damagedWeightsThrowInsteadOfTrapping() throws {
        let good = try CharacterNetwork.embedded.get()
        #expect(good.layers.count > 2)
        #expect(throws: CharacterPointFinderError.self) { try CharacterNetwork(bytes: []) }
        #expect(throws: CharacterPointFinderError.self) { try CharacterNetwork(bytes: Array("E2NWxxxx".utf8)) }
        #expect(throws: CharacterPointFinderError.self) { try CharacterNetwork(bytes: Array("E2CPxxxx".utf8)) }
        // A dense layer's shape that fits, but its weights are missing.
        let header: [(String, NeuralTensor)] = [
            ("size", Self.int(96)), ("outputs", Self.int(53)), ("layers", Self.int(1)),
            ("0.layer", NeuralTensor(shape: [5], ints: [2, 4 * 96 * 96, 53, 0, 0])),
        ]
        #expect(throws: CharacterPointFinderError.self) { try CharacterNetwork(bytes: Self.file(header)) }
        // Huge extents are rejected before any allocation.
        let zeros = NeuralTensor(shape: [53, 1], floats: [Float](repeating: 0, count: 53))
        var huge = Self.file(header + [("0.weights", zeros)])
        let extent = huge.count - 4 - 4  // the last tensor's second extent, before its 53 values
        huge.replaceSubrange((extent - 53 * 4)..<(extent - 53 * 4 + 4), with: [255, 255, 255, 127])
        #expect(throws: CharacterPointFinderError.self) { try CharacterNetwork(bytes: huge) }
        // The lip-sync model's file is another kind of network.
        #expect(throws: CharacterPointFinderError.self) { try CharacterNetwork(bytes: ShippedWeights.bytes) }
    }

    static func int(_ value: Int32) -> NeuralTensor { NeuralTensor(shape: [], ints: [value]) }

    /// A character network's weights file from its tensors.
    static func file(_ tensors: [(String, NeuralTensor)], kind: String = CharacterNetwork.kind) -> [UInt8] {
        NeuralWeights(kind: kind, tensors: tensors).bytes
    }

    /// A character network's weights file from its layers: header [kind, a, b, c, relu], float weights (then bias,
    /// b values, split off) or the heads' order.
    private static func network(layers: [(header: [Int32], floats: [Float], words: [Int32])]) -> [UInt8] {
        var tensors: [(String, NeuralTensor)] = [("size", int(96)), ("outputs", int(53)), ("layers", int(Int32(layers.count)))]
        for (i, layer) in layers.enumerated() {
            tensors.append(("\(i).layer", NeuralTensor(shape: [5], ints: layer.header)))
            let (a, b) = (Int(layer.header[1]), Int(layer.header[2]))
            if layer.header[0] == 4 {
                tensors.append(("\(i).order", NeuralTensor(shape: [layer.words.count], ints: layer.words)))
            } else {
                tensors.append(("\(i).weights", NeuralTensor(shape: [b, a, 3, 3], floats: Array(layer.floats.dropLast(b)))))
                tensors.append(("\(i).bias", NeuralTensor(shape: [b], floats: Array(layer.floats.suffix(b)))))
            }
        }
        return file(tensors)
    }

    /// A network: a stride-2 convolution whose channel 0 copies the input's alpha (times 40), an identity dilated
    /// convolution, and heatmap heads (23 heatmaps of 30 channels; outputs 0 and 1 swapped).
    private static func headsNetwork(order: [Int32], headsLast: Bool = true) -> [UInt8] {
        var conv = [Float](repeating: 0, count: 30 * 4 * 9)
        conv[(0 * 4 + 3) * 9 + 4] = 40  // output channel 0, input channel 3 (alpha), the centre tap
        var identity = [Float](repeating: 0, count: 30 * 30 * 9)
        for c in 0..<30 { identity[(c * 30 + c) * 9 + 4] = 1 }
        let convolution: (header: [Int32], floats: [Float], words: [Int32]) =
            ([1, 4, 30, 2, 0], conv + [Float](repeating: 0, count: 30), [])
        let dilated: (header: [Int32], floats: [Float], words: [Int32]) =
            ([3, 30, 30, 2, 0], identity + [Float](repeating: 0, count: 30), [])
        let heads: (header: [Int32], floats: [Float], words: [Int32]) = ([4, 30, 53, 23, 0], [], order)
        return network(layers: headsLast ? [convolution, dilated, heads] : [convolution, heads, dilated])
    }

    @Test func heatmapHeadsGiveTheSoftArgmaxOfEachMapInTheFilesOrder() throws {
        let order: [Int32] = [1, 0] + (2..<53).map(Int32.init)
        let network = try CharacterNetwork(bytes: Self.headsNetwork(order: order))
        #expect(network.layers.map(\.kind) == [.convolution, .dilatedConvolution, .heads])
        // A single opaque pixel at (62, 30): after the stride-2 convolution, cell (31, 15) of the 48 x 48 map
        // holds 20 and every other cell -20, so heatmap 0's soft-argmax is that cell's centre.
        var input = [Float](repeating: -0.5, count: 4 * 96 * 96)
        input[3 * 96 * 96 + 30 * 96 + 62] = 0.5
        let out = network.run(input)
        #expect(out.count == 53)
        // Output 0 is the y (order[0] = 1), output 1 the x: (x, y) = ((31 + 0.5) / 48, (15 + 0.5) / 48).
        #expect(abs(out[1] - 31.5 / 48) < 1e-4)
        #expect(abs(out[0] - 15.5 / 48) < 1e-4)
        // The other heatmaps are flat (every cell 0): their points are the map's centre.
        #expect(abs(out[2] - 0.5) < 1e-4 && abs(out[3] - 0.5) < 1e-4)
        // The means of channels 23-29 (all 0).
        #expect(out[46...].allSatisfy { abs($0) < 1e-6 })
    }

    @Test func malformedHeatmapNetworksThrow() throws {
        let order = (0..<53).map(Int32.init)
        #expect(throws: CharacterPointFinderError.self) {  // not a permutation
            try CharacterNetwork(bytes: Self.headsNetwork(order: [0] + order.dropLast()))
        }
        #expect(throws: CharacterPointFinderError.self) {  // an index out of range
            try CharacterNetwork(bytes: Self.headsNetwork(order: [53] + order.dropFirst()))
        }
        #expect(throws: CharacterPointFinderError.self) {  // a layer after the heads
            try CharacterNetwork(bytes: Self.headsNetwork(order: order, headsLast: false))
        }
        let file = try NeuralWeights(bytes: Self.headsNetwork(order: order))
        #expect(throws: CharacterPointFinderError.self) {  // another network kind
            try CharacterNetwork(bytes: Self.file(file.names.map { ($0, file.tensors[$0]!) }, kind: "essence2-lipsync"))
        }
        var truncated = Self.headsNetwork(order: order)
        truncated.removeLast(3)
        #expect(throws: CharacterPointFinderError.self) { try CharacterNetwork(bytes: truncated) }
    }

    /// A large picture (the crops then average 4 x 4 samples a pixel): the fixture scaled to 720 x 720 gives its
    /// points near the truth scaled alike. (The finder's speed is `make bench`'s: tools/bench_character.sh.)
    @Test func largePictureGivesThePointsOfItsSmallCopy() throws {
        let name = CharacterFixture.names[0]
        let (picture, truth) = try CharacterFixture.load(name)
        let side = 720
        var bgr = [UInt8](repeating: 0, count: side * side * 3)
        var alpha = [UInt8](repeating: 0, count: side * side)
        for y in 0..<side {
            for x in 0..<side {
                let s = (y * picture.height / side) * picture.width + x * picture.width / side
                for c in 0..<3 { bgr[(y * side + x) * 3 + c] = picture.bgr[s * 3 + c] }
                alpha[y * side + x] = picture.alpha[s]
            }
        }
        let found = try CharacterPointFinder.find(bgr: bgr, alpha: alpha, width: side, height: side)
        let scale = Float(side) / Float(picture.width)
        let leftEye = try #require(CharacterFixture.point(truth["left_eye"])) * scale
        let rightEye = try #require(CharacterFixture.point(truth["right_eye"])) * scale
        let eyeDistance = ((rightEye - leftEye) * (rightEye - leftEye)).sum().squareRoot()
        for (key, p) in Self.eyeAndMouth(found) {
            let t = try #require(CharacterFixture.point(truth[key])) * scale
            let error = ((p - t) * (p - t)).sum().squareRoot() / eyeDistance
            #expect(error <= 0.25, "\(name) at 720 x 720, \(key): \(p) vs \(t), \(error) eye distances")
        }
    }

    /// With CHARACTER_EVAL_DIR set (tools/character/evaluate.py --dump DIR), runs the finder on each dumped
    /// picture and writes DIR/name.result.json, which `evaluate.py --swift DIR` turns into the table.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["CHARACTER_EVAL_DIR"] != nil))
    func evaluateDumpedPictures() throws {
        let dir = try #require(ProcessInfo.processInfo.environment["CHARACTER_EVAL_DIR"])
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".rgba") }
        for file in names.sorted() {
            let name = String(file.dropLast(5))
            let info = try CharacterFixture.json("\(dir)/\(name).json")
            let width = try #require(info["width"] as? Int), height = try #require(info["height"] as? Int)
            let rgba = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(dir)/\(file)")))
            let picture = CharacterFixture.split(rgba, width: width, height: height)
            let finding = try CharacterPointFinder.find(bgr: picture.bgr, alpha: picture.alpha, width: width, height: height)
            let p = finding.points
            func a(_ v: SIMD2<Float>?) -> Any { v.map { [Double($0.x), Double($0.y)] } ?? NSNull() }
            let doc: [String: Any] = [
                "left_eye": a(p.leftEye), "right_eye": a(p.rightEye), "mouth_left": a(p.mouthLeft),
                "mouth_right": a(p.mouthRight), "mouth_center": a(p.mouthCenter), "left_brow": a(p.leftBrow),
                "right_brow": a(p.rightBrow), "left_eye_radius": Double(p.leftEyeRadius ?? 0),
                "right_eye_radius": Double(p.rightEyeRadius ?? 0), "mouth": p.mouth.rawValue,
                "outline": p.outline.map { a($0) }, "confidence": Double(finding.confidence),
            ]
            let data = try JSONSerialization.data(withJSONObject: doc)
            try data.write(to: URL(fileURLWithPath: "\(dir)/\(name).result.json"))
        }
    }
}
