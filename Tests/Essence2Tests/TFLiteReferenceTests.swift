import Testing
@testable import Essence2Runtime
@testable import Essence2Vision
@testable import Essence2Authoring

/// Compares the interpreter with the official TFLite runtime's outputs (tools/tflite_reference.py) on the
/// two MediaPipe face models, for seeded noise and for real portrait/face images.
@Suite struct TFLiteReferenceTests {
    struct Case {
        var name: String
        var model: String
        var input: [Float]
        var outputs: [JSONValue]
    }

    static func cases() throws -> [Case] {
        let path = TFLiteFixtures.fixturesDirectory + "/reference.json"
        let bytes = try #require(TFLiteFixtures.bytes(ofFile: path), "missing \(path)")
        let root = try JSONParser.parse(bytes)
        var out: [Case] = []
        for item in try #require(root["cases"]?.arrayValue) {
            let model = try #require(item["model"]?.stringValue)
            let size = model == TFLiteFixtures.detectorFile ? 128 : 192
            let spec = try #require(item["input"])
            let lo = Float(try #require(spec["lo"]?.doubleValue)), hi = Float(try #require(spec["hi"]?.doubleValue))
            let input: [Float]
            if spec["kind"]?.stringValue == "lcg" {
                let seed = UInt32(try #require(spec["seed"]?.intValue))
                input = TFLiteFixtures.lcg(count: size * size * 3, seed: seed, lo: lo, hi: hi)
            } else {
                let image = try #require(spec["image"]?.stringValue)
                let pixels = try #require(TFLiteFixtures.bytes(ofFile: TFLiteFixtures.fixturesDirectory + "/" + image))
                let width = try #require(spec["width"]?.intValue), height = try #require(spec["height"]?.intValue)
                try #require(pixels.count == width * height * 3)
                input = TFLiteFixtures.rgb(pixels, width: width, height: height, size: size, lo: lo, hi: hi)
            }
            out.append(Case(name: try #require(item["name"]?.stringValue), model: model, input: input,
                            outputs: try #require(item["outputs"]?.arrayValue)))
        }
        return out
    }

    @Test func faceModelsMatchTheTFLiteRuntimeWithinOneThousandthOfTheOutputRange() throws {
        var interpreters: [String: TFLiteInterpreter] = [:]
        let cases = try Self.cases()
        #expect(cases.count == 4)
        for c in cases {
            if interpreters[c.model] == nil {
                let bytes = try #require(TFLiteFixtures.model(c.model), "missing models/\(c.model)")
                interpreters[c.model] = try TFLiteInterpreter(model: TFLiteModel(bytes: bytes))
            }
            let shape = interpreters[c.model]!.model.inputShapes[0]
            let outputs = try interpreters[c.model]!.invoke([TFLiteTensor(shape: shape, values: c.input)])
            #expect(outputs.count == c.outputs.count)
            for (index, (got, expected)) in zip(outputs, c.outputs).enumerated() {
                let shape = try #require(expected["shape"]?.arrayValue).compactMap(\.intValue)
                #expect(got.shape == shape, "\(c.name) output \(index) shape")
                let lo = try #require(expected["min"]?.doubleValue), hi = try #require(expected["max"]?.doubleValue)
                let stride = try #require(expected["stride"]?.intValue)
                let samples = try #require(expected["samples"]?.arrayValue).compactMap(\.doubleValue)
                #expect(samples.count == (got.values.count + stride - 1) / stride)
                var worst = 0.0
                for (k, want) in samples.enumerated() where k * stride < got.values.count {
                    worst = Swift.max(worst, abs(Double(got.values[k * stride]) - want))
                }
                let mean = got.values.reduce(0.0) { $0 + Double($1) } / Double(got.values.count)
                let wantMean = try #require(expected["mean"]?.doubleValue)
                let tolerance = 1e-3 * Swift.max(hi - lo, 1)
                print("TFLite reference \(c.name) output \(index): max abs error \(worst) (range \(hi - lo))")
                #expect(worst <= tolerance, "\(c.name) output \(index): max abs error \(worst) > \(tolerance)")
                #expect(abs(mean - wantMean) <= tolerance, "\(c.name) output \(index): mean \(mean) vs \(wantMean)")
                #expect(abs(Double(got.values.min()!) - lo) <= tolerance && abs(Double(got.values.max()!) - hi) <= tolerance)
            }
        }
    }
}
