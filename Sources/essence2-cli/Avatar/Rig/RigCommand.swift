import Essence2Runtime
import Essence2Authoring
import FoundationEssentials
import Glibc

/// `essence2 avatar rig IMAGE [-o X.imx] [--points FILE.json] [--size WxH] [--background B] [--name N]
/// [--port N] [--host ADDR] [--keep]`: with --points, builds the character avatar at once (as
/// `avatar build --character --points`); without, serves the rig editor, a local page to place the character's
/// points on its picture with a live preview, which writes X.imx and X.points.json when saved.
enum RigCommand {
    static func run(_ args: [String]) -> Int32 {
        if args.contains(where: { $0 == "-h" || $0 == "--help" }) {
            print(AvatarCommand.usage, terminator: "")
            return ExitStatus.success
        }
        let options: RigOptions
        do {
            options = try RigOptions(args)
        } catch {
            return AvatarCommand.usageError("rig", error.message)
        }
        do {
            if let points = options.points {
                return try AvatarCommand.buildCharacter(
                    picture: options.picture, output: options.output, points: points, savePoints: nil,
                    background: options.background, name: options.name, size: options.size,
                    seed: AvatarBuilder.defaultSeed, source: nil, licence: nil, builder: "essence2 avatar rig --points")
            }
            return try edit(options)
        } catch let error as CLIError {
            AvatarCommand.printError("essence2 avatar rig: \(error)")
            return error.status
        } catch {
            AvatarCommand.printError("essence2 avatar rig: \(error)")
            return ExitStatus.failure
        }
    }

    /// The editor: proposes the points, serves the page until a save (or, with --keep, until Ctrl-C).
    private static func edit(_ options: RigOptions) throws -> Int32 {
        try FileCheck.requireWritableOutput(options.output, option: "-o")
        try FileCheck.requireWritableOutput(options.pointsOutput, option: "-o (its points file)")
        let image = try ImageDecoder.decode(path: options.picture, maxPixels: ImageDecoder.maxCharacterPixels)
        AvatarCommand.reportOrientation(of: image)
        let backdrop = try AvatarCommand.characterBackdrop(options.background)
        var start: CharacterPoints, note: String
        var otherFaces: [CharacterPoints] = []
        do {
            let found = try CharacterPointProposal.propose(bgr: image.bgr, alpha: image.alpha, width: image.width,
                                                           height: image.height, otherFaces: true)
            start = found.points
            otherFaces = found.otherFaces
            note = found.doubt.map { "The point finder is not sure of these points (\($0)): check each one." }
                ?? "The points were found by \(found.finder) (confidence \(found.confidenceText))."
        } catch {
            start = defaultPoints(width: image.width, height: image.height)
            note = "No points were found; these are a default layout: drag each one onto the character."
        }
        // The first build checks the picture and backdrop before the page is served; points the finder guessed
        // that do not build (a hidden eye placed off the picture, say) give way to the default layout, so the
        // editor opens on any picture a character can be built from.
        do {
            _ = try AvatarCommand.makeCharacter(image: image, picture: options.picture, points: start, backdrop: backdrop,
                                                name: options.name, size: options.size, seed: AvatarBuilder.defaultSeed)
        } catch {
            start = defaultPoints(width: image.width, height: image.height)
            note = "The points found did not build a character (\(error)); these are a default layout: drag each one onto the character."
            _ = try AvatarCommand.makeCharacter(image: image, picture: options.picture, points: start, backdrop: backdrop,
                                                name: options.name, size: options.size, seed: AvatarBuilder.defaultSeed)
        }
        let server = try RigHTTPServer(host: options.host, port: options.port)
        let token = try RigToken.make()
        let gate = RigGate(token: token, port: server.port, host: server.host)
        let editor = RigEditor(options: options, image: image, backdrop: backdrop, start: start, otherFaces: otherFaces,
                               note: note)
        let shown = server.host == "0.0.0.0" ? "127.0.0.1" : server.host
        Interruption.catchSignals()
        print("essence2 avatar rig: open http://\(shown):\(server.port)/?token=\(token)")
        print("  place the points on \(options.picture) and press Save to write \(options.output) and \(options.pointsOutput)"
            + (options.keep ? " (Ctrl-C ends the editor)" : "; Ctrl-C ends the editor without saving"))
        fflush(nil)  // stdout may be a pipe: say the address now
        server.serve(gate: gate.refusal(of:), editor.handle) {
            Interruption.requested || (editor.saves > 0 && !options.keep)
        }
        if Interruption.requested {
            AvatarCommand.printError("essence2 avatar rig: stopped" + (editor.saves > 0 ? "" : "; nothing saved"))
            return editor.saves > 0 ? ExitStatus.success : Interruption.status
        }
        return ExitStatus.success
    }

    /// Where the editor starts without a proposal: eyes at 35% and 65% of the width and 40% of the height,
    /// mouth corners at 42% and 58% of the width and 65% of the height, its centre between them, drawn closed.
    static func defaultPoints(width: Int, height: Int) -> CharacterPoints {
        let w = Float(width), h = Float(height)
        return CharacterPoints(
            leftEye: SIMD2(0.35 * w, 0.4 * h), rightEye: SIMD2(0.65 * w, 0.4 * h),
            mouthLeft: SIMD2(0.42 * w, 0.65 * h), mouthRight: SIMD2(0.58 * w, 0.65 * h),
            mouthCenter: SIMD2(0.5 * w, 0.65 * h), mouth: .closed)
    }
}
