import Essence2Runtime
import Essence2Vision
import Essence2Authoring
import FoundationEssentials

extension AvatarCommand {
    /// `essence2 avatar detect PORTRAIT …`: the faces found, the chosen face's landmarks (optionally written as
    /// JSON that `avatar build --landmarks/--mesh` reads back), and with `--time N` the median cost.
    static let detectScanner = ArgumentScanner(options: [
        .init(name: "--models", takesValue: true), .init(name: "--landmarks-out", takesValue: true),
        .init(name: "--mesh-out", takesValue: true), .init(name: "--face", takesValue: true),
        .init(name: "--time", takesValue: true),
    ])

    static func detect(_ args: [String]) -> Int32 {
        func usageError(_ text: String) -> Int32 { AvatarCommand.usageError("detect", text) }
        let scanned: ArgumentScanner.Result
        do {
            scanned = try detectScanner.scan(args)
        } catch {
            return usageError(error.message)
        }
        guard scanned.positionals.count <= 1 else {
            return usageError("more than one portrait given ('\(scanned.positionals[1])')")
        }
        let portrait = scanned.positionals.first
        let models = scanned.value("--models")
        let landmarksOut = scanned.value("--landmarks-out")
        let meshOut = scanned.value("--mesh-out")
        var number: Int?
        var repeats = 0
        if let value = scanned.value("--face") {
            guard let n = Int(value), n >= 1 else { return usageError("--face \(value) is not a face number (1 = leftmost)") }
            number = n
        }
        if let value = scanned.value("--time") {
            guard let n = Int(value), (1...1000).contains(n) else { return usageError("--time \(value) is not 1...1000") }
            repeats = n
        }
        guard let portrait else { return usageError("a portrait is required") }
        do {
            if let landmarksOut { try FileCheck.requireWritableOutput(landmarksOut, option: "--landmarks-out") }
            if let meshOut { try FileCheck.requireWritableOutput(meshOut, option: "--mesh-out") }
            let image = try ImageDecoder.decode(path: portrait)
            reportOrientation(of: image)
            if let problem = FaceAnalyzer.sizeProblem(width: image.width, height: image.height) {
                throw CLIError("\(portrait): \(problem)")
            }
            var finder = try FaceFinder(modelDirectory: models)
            let faces = try finder.faces(in: image)
            print("\(portrait): \(image.width)x\(image.height), \(faces.count) face\(faces.count == 1 ? "" : "s") (numbered left to right)")
            for (i, face) in faces.enumerated() { print("  face \(i + 1): \(face)") }
            if faces.count > 1, number == nil, landmarksOut == nil, meshOut == nil, repeats == 0 {
                print("  pass --face N for a face's landmarks")
                return ExitStatus.success
            }
            let face: FaceDetection
            do {
                face = try FaceAnalyzer.choose(faces, number: number)
            } catch {
                throw CLIError(FaceFinder.message(error))
            }
            let result = try finder.landmarks(in: image, face: face)
            let landmarks = result.landmarks()
            print("  landmarks of face \(number ?? 1): 468 points, presence \(Float(Int(result.presence * 100)) / 100), "
                + "face box \(landmarks.faceBox.width)x\(landmarks.faceBox.height) at (\(landmarks.faceBox.x), \(landmarks.faceBox.y)), "
                + "mouth box \(landmarks.mouthBox.width)x\(landmarks.mouthBox.height) at (\(landmarks.mouthBox.x), \(landmarks.mouthBox.y))")
            let name = URL(fileURLWithPath: portrait).lastPathComponent
            let model = "MediaPipe Face Mesh 0.10.21 (468 points, iris points estimated), run by essence2 \(LibraryVersion.string)"
            if let landmarksOut {
                try BinaryFile.write(landmarks.jsonBytes(image: name, width: image.width, height: image.height, model: model),
                                     to: landmarksOut)
                print("  wrote \(landmarksOut)")
            }
            if let meshOut {
                try BinaryFile.write(result.mesh().jsonBytes(image: name, width: image.width, height: image.height, model: model),
                                     to: meshOut)
                print("  wrote \(meshOut)")
            }
            if repeats > 0 {
                var detectTimes: [Double] = []
                var totalTimes: [Double] = []
                for _ in 0..<repeats {
                    let start = Clock.now()
                    let found = try FaceAnalyzer.choose(finder.faces(in: image), number: number)
                    let detected = Clock.now()
                    _ = try finder.landmarks(in: image, face: found)
                    let end = Clock.now()
                    detectTimes.append(detected - start)
                    totalTimes.append(end - start)
                }
                func ms(_ seconds: Double) -> String { Formatting.fixed(seconds * 1000, digits: 1) + " ms" }
                print("  time (one thread, median of \(repeats)): detection \(ms(Statistics.median(detectTimes))), "
                    + "detection + landmarks \(ms(Statistics.median(totalTimes)))")
            }
            return ExitStatus.success
        } catch let error as CLIError {
            printError("essence2 avatar detect: \(error)")
            return error.status
        } catch {
            printError("essence2 avatar detect: \(error)")
            return ExitStatus.failure
        }
    }
}
