import Essence2Runtime
import Essence2Vision
import Essence2Authoring
import FoundationEssentials

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
        var size: (width: Int, height: Int)?
        var fit = false
        var face: Int?
        var models: String?
    }

    /// Largest landmark or mesh JSON file read.
    static let maxJSONSize = 16 << 20

    static let buildScanner = ArgumentScanner(options: [
        .init(name: "--portrait", takesValue: true), .init(name: "--landmarks", takesValue: true),
        .init(name: "--mesh", takesValue: true), .init(name: "--output", aliases: ["-o"], takesValue: true),
        .init(name: "--name", takesValue: true), .init(name: "--source", takesValue: true),
        .init(name: "--licence", aliases: ["--license"], takesValue: true), .init(name: "--models", takesValue: true),
        .init(name: "--face", takesValue: true), .init(name: "--seed", takesValue: true),
        .init(name: "--size", takesValue: true), .init(name: "--canvas", takesValue: true),
        .init(name: "--fit", takesValue: false), .init(name: "--character", takesValue: false),
        .init(name: "--points", takesValue: true), .init(name: "--background", takesValue: true),
        .init(name: "--save-points", takesValue: true),
    ])

    static func build(_ args: [String]) -> Int32 {
        func usageError(_ text: String) -> Int32 { AvatarCommand.usageError("build", text) }
        let scanned: ArgumentScanner.Result
        do {
            scanned = try buildScanner.scan(args)
        } catch {
            return usageError(error.message)
        }
        var options = BuildOptions()
        let portraits = scanned.positionals + (scanned.value("--portrait").map { [$0] } ?? [])
        guard portraits.count <= 1 else { return usageError("more than one portrait given ('\(portraits[1])')") }
        options.portrait = portraits.first
        options.landmarks = scanned.value("--landmarks")
        options.mesh = scanned.value("--mesh")
        options.output = scanned.value("--output")
        options.name = scanned.value("--name")
        options.source = scanned.value("--source")
        options.licence = scanned.value("--licence")
        options.models = scanned.value("--models")
        options.fit = scanned.has("--fit")
        if let value = scanned.value("--face") {
            guard let number = Int(value), number >= 1 else {
                return usageError("--face \(value) is not a face number (1 = leftmost)")
            }
            options.face = number
        }
        if let value = scanned.value("--seed") {
            let parsed = value.hasPrefix("0x") ? UInt64(value.dropFirst(2), radix: 16) : UInt64(value)
            guard let seed = parsed else { return usageError("--seed \(value) is not a number") }
            options.seed = seed
        }
        for flag in ["--size", "--canvas"] {
            guard let value = scanned.value(flag) else { continue }
            guard options.size == nil else { return usageError("--size and --canvas both given") }
            let parts = value.lowercased().split(separator: "x")
            guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (16...AvatarFileFormat.maxSide).contains(w),
                  (16...AvatarFileFormat.maxSide).contains(h), w * h <= AvatarFileFormat.maxPixels else {
                return usageError("\(flag) \(value) is not WIDTHxHEIGHT with sides 16...\(AvatarFileFormat.maxSide) and at most \(AvatarFileFormat.maxPixels) pixels")
            }
            options.size = (w, h)
            // --canvas is the older spelling of --size WxH --fit.
            if flag == "--canvas" { options.fit = true }
        }
        if scanned.has("--character") || scanned.value("--points") != nil {
            return buildCharacter(scanned, picture: options.portrait, output: options.output, name: options.name,
                                  size: options.size, seed: options.seed, source: options.source, licence: options.licence)
        }
        for flag in ["--background", "--save-points"] where scanned.value(flag) != nil {
            return usageError("\(flag) goes with --character")
        }
        guard let portrait = options.portrait, let output = options.output else {
            return usageError("a portrait and -o AVATAR.imx are required")
        }
        if options.mesh != nil, options.landmarks == nil {
            return usageError("--mesh needs --landmarks (a mesh found in the portrait replaces both)")
        }
        if options.face != nil, options.landmarks != nil {
            return usageError("--face picks a detected face; it does not go with --landmarks")
        }
        do {
            return try build(options, portrait: portrait, output: output)
        } catch let error as CLIError {
            printError("essence2 avatar build: \(error)")
            return error.status
        } catch {
            printError("essence2 avatar build: \(error)")
            return ExitStatus.failure
        }
    }

    private static func build(_ options: BuildOptions, portrait: String, output: String) throws -> Int32 {
        try FileCheck.requireWritableOutput(output, option: "-o")
        let image = try ImageDecoder.decode(path: portrait)
        reportOrientation(of: image)
        let baseName = URL(fileURLWithPath: portrait).deletingPathExtension().lastPathComponent
        let name = options.name ?? baseName
        var info: [String: String] = [
            "builder": "essence2 avatar build",
            "portrait": URL(fileURLWithPath: portrait).lastPathComponent,
        ]
        var avatar: Avatar
        var placement: String
        if let landmarks = options.landmarks {
            // Landmarks describe the portrait as given: it is kept whole (placed, never cropped).
            let landmarkJSON = try readSmallFile(landmarks)
            let meshJSON = try options.mesh.map(readSmallFile)
            avatar = try AvatarBuilder.build(name: name, bgr: image.bgr, width: image.width, height: image.height,
                                             landmarksJSON: landmarkJSON, meshJSON: meshJSON, seed: options.seed)
            info["landmarks"] = URL(fileURLWithPath: landmarks).lastPathComponent
            info["mesh"] = options.mesh.map { URL(fileURLWithPath: $0).lastPathComponent }
                ?? "synthesized from the landmarks (coarse fit of a template mesh)"
            placement = "portrait \(image.width)x\(image.height)"
            if let size = options.size {
                avatar = avatar.placed(onCanvasWidth: size.width, height: size.height)
                placement += " placed whole on a \(size.width)x\(size.height) canvas"
            }
        } else {
            if let problem = FaceAnalyzer.sizeProblem(width: image.width, height: image.height) {
                throw CLIError("\(portrait): \(problem)")
            }
            var finder = try FaceFinder(modelDirectory: options.models)
            let found = try finder.avatar(
                from: image, name: name, size: options.size, fit: options.fit, face: options.face, seed: options.seed)
            if let warning = found.warning { printError("essence2: warning: \(warning)") }
            avatar = found.avatar
            placement = found.placement
            info["landmarks"] = "found in the portrait: MediaPipe face detector and Face Mesh 0.10.21 run by essence2"
            info["mesh"] = "468 Face Mesh points found in the portrait, iris points estimated from the eye contours"
            info["face"] = found.face
        }
        info["placement"] = placement
        if let source = options.source { info["source"] = source }
        if let licence = options.licence { info["licence"] = licence }
        try AvatarFile.write(avatar, info: info, to: output)
        let check = try AvatarFile.read(path: output)  // what was written must read back
        let size = FileCheck.size(output) ?? 0
        print("wrote \(output): \(check.name), \(check.width)x\(check.height) (\(placement)), \(size) bytes, "
            + "head box \(check.headBox.width)x\(check.headBox.height) at (\(check.headBox.x), \(check.headBox.y))")
        return ExitStatus.success
    }

    static func readSmallFile(_ path: String) throws -> [UInt8] {
        guard FileCheck.isFile(path), let size = FileCheck.size(path) else {
            throw ImageDecodeError("cannot read \(path): no such file, or not a readable file")
        }
        if size > maxJSONSize {
            throw ImageDecodeError("\(path): \(size) bytes, more than the limit of \(maxJSONSize)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ImageDecodeError("cannot read \(path)")
        }
        return [UInt8](data)
    }
}
