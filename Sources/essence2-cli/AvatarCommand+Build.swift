import Essence2Core
import Foundation

extension AvatarCommand {
    /// Options of `essence2 avatar build`.
    private struct BuildOptions {
        var portrait: String?
        var landmarks: String?
        var mesh: String?
        var output: String?
        var name: String?
        var seed: UInt64 = AvatarBuilder.defaultSeed
        var source: String?
        var licence: String?
        var canvas: (width: Int, height: Int)?
    }

    /// Largest landmark or mesh JSON file read.
    static let maxJSONSize = 16 << 20

    static func build(_ args: [String]) -> Int32 {
        var options = BuildOptions()
        var index = 0
        while index < args.count {
            let flag = args[index]
            guard index + 1 < args.count else {
                printError("essence2 avatar build: \(flag) needs a value\n" + usage)
                return 2
            }
            let value = args[index + 1]
            index += 2
            switch flag {
            case "--portrait": options.portrait = value
            case "--landmarks": options.landmarks = value
            case "--mesh": options.mesh = value
            case "-o", "--output": options.output = value
            case "--name": options.name = value
            case "--source": options.source = value
            case "--licence", "--license": options.licence = value
            case "--seed":
                let parsed = value.hasPrefix("0x") ? UInt64(value.dropFirst(2), radix: 16) : UInt64(value)
                guard let seed = parsed else {
                    printError("essence2 avatar build: --seed \(value) is not a number")
                    return 2
                }
                options.seed = seed
            case "--canvas":
                let parts = value.lowercased().split(separator: "x")
                guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (1...16384).contains(w),
                      (1...16384).contains(h), w * h <= AvatarFileFormat.maxPixels else {
                    printError("essence2 avatar build: --canvas \(value) is not WIDTHxHEIGHT within 16384x16384 and 8192*8192 pixels")
                    return 2
                }
                options.canvas = (w, h)
            default:
                printError("essence2 avatar build: unknown option '\(flag)'\n" + usage)
                return 2
            }
        }
        guard let portrait = options.portrait, let landmarks = options.landmarks, let output = options.output else {
            printError("essence2 avatar build: --portrait, --landmarks and -o are required\n" + usage)
            return 2
        }
        do {
            return try build(options, portrait: portrait, landmarks: landmarks, output: output)
        } catch {
            printError("essence2 avatar build: \(error)")
            return 1
        }
    }

    private static func build(_ options: BuildOptions, portrait: String, landmarks: String,
                              output: String) throws -> Int32 {
        let image = try ImageDecoder.decode(path: portrait)
        let landmarkJSON = try readSmallFile(landmarks)
        let meshJSON = try options.mesh.map(readSmallFile)
        let baseName = URL(fileURLWithPath: portrait).deletingPathExtension().lastPathComponent
        var avatar = try AvatarBuilder.build(name: options.name ?? baseName, bgr: image.bgr, width: image.width,
                                             height: image.height, landmarksJSON: landmarkJSON, meshJSON: meshJSON,
                                             seed: options.seed)
        if let canvas = options.canvas {
            avatar = avatar.placed(onCanvasWidth: canvas.width, height: canvas.height)
        }
        var info: [String: String] = [
            "builder": "essence2 avatar build",
            "portrait": URL(fileURLWithPath: portrait).lastPathComponent,
            "landmarks": URL(fileURLWithPath: landmarks).lastPathComponent,
            "mesh": options.mesh.map { URL(fileURLWithPath: $0).lastPathComponent }
                ?? "synthesized from the landmarks (coarse fit of a template mesh)",
        ]
        if let source = options.source { info["source"] = source }
        if let licence = options.licence { info["licence"] = licence }
        if let canvas = options.canvas {
            info["canvas"] = "portrait \(image.width)x\(image.height) placed on a \(canvas.width)x\(canvas.height) canvas"
        }
        try AvatarFile.write(avatar, info: info, to: output)
        let check = try AvatarFile.read(path: output)  // what was written must read back
        let size = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
        print("wrote \(output): \(check.name), \(check.width)x\(check.height), \(size) bytes, "
            + "mesh \(options.mesh == nil ? "synthesized" : "from \(options.mesh!)"), head box \(check.headBox.width)x\(check.headBox.height) at (\(check.headBox.x), \(check.headBox.y))")
        return 0
    }

    private static func readSmallFile(_ path: String) throws -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
              let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let data = FileManager.default.contents(atPath: path) else {
            throw ImageDecodeError("cannot read \(path): no such file, or not a readable file")
        }
        if let size = attributes[.size] as? Int, size > maxJSONSize {
            throw ImageDecodeError("\(path): \(size) bytes, more than the limit of \(maxJSONSize)")
        }
        return [UInt8](data)
    }
}
