import Testing
@testable import Essence2Runtime
@testable import Essence2Vision
@testable import Essence2Authoring

@Suite struct AvatarFileJSONTests {
    private func parse(_ text: String) -> JSONValue? {
        try? JSONParser.parse(Array(text.utf8))
    }

    @Test func parsesNestedValues() throws {
        let value = try #require(parse(" {\"a\": [1, -2.5e3, true, false, null], \"b\": {\"c\": \"d\"}} \n"))
        #expect(value["a"]?.arrayValue?.count == 5)
        #expect(value["a"]?.arrayValue?[1].doubleValue == -2500)
        #expect(value["a"]?.arrayValue?[0].intValue == 1)
        #expect(value["a"]?.arrayValue?[1].intValue == nil)
        #expect(value["b"]?["c"]?.stringValue == "d")
        #expect(value["missing"] == nil)
    }

    @Test func decodesEscapesAndSurrogatePairs() {
        #expect(parse("\"a\\\"b\\\\c\\/d\\n\\t\\u00e9\\ud83d\\ude00\"")?.stringValue == "a\"b\\c/d\n\té\u{1F600}")
        #expect(parse("\"caf\u{E9}\"")?.stringValue == "café")
    }

    @Test(arguments: ["", " ", "01", "1.", ".5", "+1", "-", "1e", "[1,]", "{\"a\":1,}", "{a:1}", "[1 2]", "'x'",
                      "\"unterminated", "\"tab\there\"", "\"\\x\"", "\"\\ud83d\"", "\"\\ude00\"", "\"\\u12\"", "tru", "nul",
                      "NaN", "Infinity", "[1] [2]", "{\"a\":1,\"a\":2}", "// comment\n1"])
    func rejectsInvalidJSON(text: String) {
        #expect(parse(text) == nil, "\(text)")
    }

    @Test func rejectsInvalidUTF8AndExcessiveNesting() {
        #expect((try? JSONParser.parse([0x22, 0xC3, 0x28, 0x22])) == nil)
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(parse(deep) == nil)
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(parse(ok) != nil)
        #expect(parse("[" + String(repeating: "1", count: 65) + "]") == nil)
    }

    @Test func reportsWhereParsingStopped() {
        do {
            _ = try JSONParser.parse(Array("[1, 2,, 3]".utf8))
            Issue.record("accepted invalid JSON")
        } catch {
            #expect(error.offset == 6)
        }
    }

    @Test func writerOutputParsesBackToTheSameValue() throws {
        let value = JSONValue.object([
            JSONMember("name", .string("quote \" backslash \\ newline \n control \u{1} é")),
            JSONMember("list", .array([.number("1"), .number("-2.5"), .bool(true), .null])),
            JSONMember("nested", .array([.object([JSONMember("k", .string("v"))]), .array([])])),
            JSONMember("empty", .object([])),
        ])
        #expect(try JSONParser.parse(JSONWriter.write(value)) == value)
    }

    @Test func randomlyDamagedLandmarkAndMeshJSONNeverTraps() throws {
        let landmarks = try AvatarFixture.repositoryFile("avatars/sources/astronaut.landmarks.json")
        let mesh = try AvatarFixture.repositoryFile("avatars/sources/astronaut.mesh.json")
        var state: UInt64 = 42
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        let alphabet = Array("{}[],:\"-+.eE0123456789 \\u".utf8) + [0, 0xFF, 0xC3]
        var rejected = 0
        for round in 0..<400 {
            var bytes = round % 4 == 0 ? mesh : landmarks
            for _ in 0..<(1 + next() % 3) {
                let position = next() % bytes.count
                switch next() % 3 {
                case 0: bytes[position] = alphabet[next() % alphabet.count]
                case 1: bytes.remove(at: position)
                default: bytes.insert(alphabet[next() % alphabet.count], at: position)
                }
            }
            do {
                if round % 4 == 0 {
                    _ = try FaceMesh.parseJSON(bytes, width: 512, height: 512)
                } else {
                    _ = try FaceLandmarks.parseJSON(bytes, width: 512, height: 512)
                }
            } catch {
                #expect(error.kind == .invalidInput)
                rejected += 1
            }
        }
        #expect(rejected > 100)  // most damage is caught by the parser or the shape checks
    }

    @Test func runLengthCodingRoundTripsAndRefusesBadInput() {
        var state: UInt32 = 7
        let noisy = (0..<5000).map { _ -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 29)
        }
        let runs = [UInt8](repeating: 0, count: 1000) + [1, 2, 2, 3, 3, 3] + [UInt8](repeating: 255, count: 131)
        for data in [[], [42], noisy, runs, noisy + runs + noisy] {
            let packed = RunLength.encode(data)
            #expect(RunLength.decode(packed[...], length: data.count) == data)
            #expect(RunLength.decodedLength(packed[...]) == data.count)
        }
        #expect(RunLength.encode(runs).count < 40)
        #expect(RunLength.decode([3, 1, 2][...], length: 4) == nil)      // literal run cut short
        #expect(RunLength.decode([130][...], length: 5) == nil)          // repeat without its byte
        #expect(RunLength.decode([130, 9][...], length: 4) == nil)       // more than the declared length
        #expect(RunLength.decode([130, 9][...], length: 6) == nil)       // less than the declared length
        #expect(RunLength.decode([130, 9][...], length: 5) == [9, 9, 9, 9, 9])
    }
}
