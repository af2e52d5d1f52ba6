import Essence2Runtime
import FoundationEssentials

/// The command line of `essence2 avatar rig`.
struct RigOptions {
    var picture: String
    /// The avatar written (default: the picture's name with .imx, in the current directory).
    var output: String
    /// A points file: build at once, no editor.
    var points: String?
    var size: (width: Int, height: Int)?
    var background: String?
    var name: String?
    var port = 0
    var host = "127.0.0.1"
    /// Keep serving after a save.
    var keep = false

    static let scanner = ArgumentScanner(options: [
        .init(name: "--output", aliases: ["-o"], takesValue: true), .init(name: "--points", takesValue: true),
        .init(name: "--size", takesValue: true), .init(name: "--background", takesValue: true),
        .init(name: "--name", takesValue: true), .init(name: "--port", takesValue: true),
        .init(name: "--host", takesValue: true), .init(name: "--keep", takesValue: false),
    ])

    /// Where the editor writes the points beside the avatar: X.imx -> X.points.json.
    var pointsOutput: String {
        (output.hasSuffix(".imx") ? String(output.dropLast(4)) : output) + ".points.json"
    }

    init(_ args: [String]) throws(CLIError) {
        let scanned = try Self.scanner.scan(args)
        guard scanned.positionals.count == 1, let picture = scanned.positionals.first else {
            throw .usage(scanned.positionals.isEmpty ? "a picture is required: essence2 avatar rig IMAGE"
                : "more than one picture given ('\(scanned.positionals[1])')")
        }
        self.picture = picture
        output = scanned.value("--output") ?? (URL(fileURLWithPath: picture).deletingPathExtension().lastPathComponent + ".imx")
        points = scanned.value("--points")
        background = scanned.value("--background")
        name = scanned.value("--name")
        keep = scanned.has("--keep")
        if let value = scanned.value("--size") {
            let parts = value.lowercased().split(separator: "x")
            guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (16...AvatarFileFormat.maxSide).contains(w),
                  (16...AvatarFileFormat.maxSide).contains(h), w * h <= AvatarFileFormat.maxPixels else {
                throw .usage("--size \(value) is not WIDTHxHEIGHT with sides 16...\(AvatarFileFormat.maxSide) and at most \(AvatarFileFormat.maxPixels) pixels")
            }
            size = (w, h)
        }
        if let value = scanned.value("--port") {
            guard let port = Int(value), (0...65535).contains(port) else {
                throw .usage("--port \(value) is not a port number (0...65535; 0 = any free port)")
            }
            self.port = port
        }
        if let value = scanned.value("--host") { host = value }
        if points != nil {
            for flag in ["--port", "--host", "--keep"] where scanned.has(flag) {
                throw .usage("\(flag) is for the editor; with --points the avatar is built at once")
            }
        }
    }
}
