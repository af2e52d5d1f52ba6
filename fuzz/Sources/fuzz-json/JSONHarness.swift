import Essence2Authoring
import Essence2Runtime
import FuzzSupport

/// fuzz-json: the JSON parser (`JSONParser`, strict RFC 8259) and every reader built on it: the `.imx`
/// manifest (`AvatarManifest.decode`), the character rig (`CharacterRig.decode`), and the command's landmark,
/// mesh and character-point files. Every input must parse or throw; a document that parses must come back
/// unchanged through `JSONWriter` and the parser (what the avatar writer stores, the reader reads back).
enum JSONHarness {
    static let parsed = FuzzCounter("json documents parsed")
    static let refused = FuzzCounter("json documents refused")

    static func run(_ bytes: [UInt8]) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            refused.add()
            return
        }
        parsed.add()
        let written = JSONWriter.write(value)
        do {
            let again = try JSONParser.parse(written)
            precondition(again == value, "a document changed through JSONWriter and back")
        } catch {
            fatalError("JSONWriter wrote what the parser refuses (\(error)): \(String(decoding: written, as: UTF8.self))")
        }
        _ = try? AvatarManifest.decode(bytes)
        _ = try? CharacterRig.decode(bytes)
        _ = try? FaceLandmarks.parseJSON(bytes, width: 512, height: 600)
        _ = try? FaceMesh.parseJSON(bytes, width: 512, height: 600)
        _ = try? CharacterPoints.decode(bytes, width: 416, height: 720)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    JSONHarness.run(data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
    return 0
}
