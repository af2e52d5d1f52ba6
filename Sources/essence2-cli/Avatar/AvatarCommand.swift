import Essence2Runtime
import Essence2Authoring
import FoundationEssentials

/// `essence2 avatar build …` and `essence2 avatar inspect …`. `run` takes the arguments after "avatar",
/// prints results to stdout and usage or errors to stderr, and returns the exit status (as `ExitStatus`):
/// 0 success, 1 build failure (bad portrait or JSON, cannot write), 2 usage error, 4 `inspect` found the
/// file missing or invalid; `get` has its own (AvatarCommand+Get.swift).
enum AvatarCommand {
    static let usage = """
        usage: essence2 avatar build PORTRAIT -o AVATAR.imx [--size WIDTHxHEIGHT [--fit]] [--face N]
                                     [--landmarks LANDMARKS.json [--mesh MESH.json]] [--models DIR]
                                     [--name NAME] [--seed HEX|DECIMAL] [--source TEXT] [--licence TEXT]
               essence2 avatar detect PORTRAIT [--face N] [--landmarks-out FILE.json] [--mesh-out FILE.json]
                                     [--time N] [--models DIR]
               essence2 avatar build PICTURE --character [-o AVATAR.imx] [--points POINTS.json]
                                     [--size WIDTHxHEIGHT] [--background #RRGGBB|PICTURE] [--save-points FILE]
               essence2 avatar inspect AVATAR.imx [--json | --look]
               essence2 avatar poses [AVATAR] --frames DIR [--region full|face|mouth] [--idle SECONDS]
                                     [--seed N]
               essence2 avatar get CODE [--cache DIR]
               essence2 avatar rig PICTURE [-o AVATAR.imx] [--points FILE.json] [--size WIDTHxHEIGHT]
                                     [--background #RRGGBB|FILE] [--name NAME] [--port N] [--host ADDR]
                                     [--keep]

          build    makes an .imx avatar from a JPEG or PNG portrait of 64x64 pixels or more (a JPEG's
                   EXIF orientation is applied). The face and its 468 Face Mesh landmarks are found in the
                   portrait (MediaPipe's models, run in essence2; --face N picks one of several faces,
                   1 = leftmost). Without --size the portrait keeps its size (scaled down to 1920 on the
                   longest side when larger); --size crops around the face to fill WIDTHxHEIGHT (with a
                   warning when that enlarges it more than 1.5 times); --size with --fit places the whole
                   portrait on that canvas, the margins filled from its edges. --landmarks (and --mesh)
                   give the face's points instead of finding them (the portrait is then kept whole;
                   --canvas WxH = --size WxH --fit). --source and --licence are recorded in the manifest.
                   --character builds a character avatar (Expression 2: 416x720 by default, 20 frames a
                   second) from any picture of a character: cartoon, animal, mascot, plush toy, drawing.
                   Its eyes, mouth, brows and head are found by essence2's character point finder, or
                   given by --points (JSON: left_eye, right_eye, mouth_left, mouth_right, mouth_center as
                   [x, y] in the picture's pixels, left being the picture's left, and mouth: "open",
                   "closed" or "absent"; optionally left_eye_radius, right_eye_radius, left_brow,
                   right_brow, mouth_opening, outline). A transparent background is replaced by one made
                   from the character's colours, or --background. When the finder is not sure it writes its
                   best guess, says so and exits 7: check the points with essence2 avatar rig PICTURE.
          detect   lists the faces found in a portrait and the chosen face's boxes; --landmarks-out and
                   --mesh-out write its landmarks as JSON that build reads back (to check or edit them);
                   --time N times detection and landmarks (median of N runs, one thread).
          poses    renders still frames to look at an avatar closely: the mouth shapes rest, a, e, i, o,
                   u, m, f/v and l/th and the eyes half closed and closed (blink_half, blink) as
                   DIR/pose_NAME.png, or with --idle SECONDS the idle motion (head,
                   breathing, blinks, gaze, brows) as DIR/idle_00000.png ... at 25 per second; --region
                   face keeps the head box, mouth a box 1.6 times the mouth's width around it.
          inspect  prints the header, sections (sizes, sha256 ok/FAIL), manifest and content of a file and
                   exits 0 when it is valid, 4 when it is missing or invalid. --json prints one JSON object:
                   kind ("character" or "photoreal"), width, height, frames_per_second, and the points
                   (left_eye, right_eye, mouth_left, mouth_right, mouth_center) in frame pixels, and for a
                   character also in the source picture's pixels (source_points). --look measures a
                   character against its picture: rest_differing (rest frame pixels unlike the picture),
                   per eye its drawing (open, closed, opaque, hidden), extent, closed_contrast (a full
                   blink's eye-box contrast over the open eye's), eye_left (eye pixels a blink leaves),
                   line_parts and line_height (what a closed eye shows); motion_centre (the mouth shapes'
                   change, eye distances from the mouth point) and outside_head (pixels changed outside
                   the head's mask).
          get      downloads the avatar CODE from the service ($ESSENCE2_SERVICE_URL) with the API secret
                   ($ESSENCE2_API_SECRET), or finds it in the cache (--cache DIR, default
                   $XDG_CACHE_HOME/essence2/avatars), and prints the path of its .imx file. The service is
                   asked first; without an answer, a copy this secret was allowed to open before is used.
                   Exits 0 with the path, 1 when the service cannot be reached and nothing is cached for
                   this secret, has no such avatar or the cache cannot be written, 4 when the file sent
                   is not the one described (sha256; nothing written) or is of a newer .imx format than
                   this essence2 reads, 6 when the service refuses the secret (401, 403) or none is set.
          rig      the rig editor of a character avatar (a cartoon, animal or toy): serves a page on this
                   machine (the address is printed: http://127.0.0.1:PORT/?token=..., --port 0 = any free
                   port, --host ADDR listens elsewhere than 127.0.0.1) that shows the picture with its points
                   (eyes, mouth corners and centre) as handles to drag, the mouth's style (drawn open,
                   closed or absent), the eyes' radii and a live preview of the character talking and
                   blinking. Save writes AVATAR.imx (default: the picture's name with .imx) and its points
                   as AVATAR.points.json, then ends the editor (--keep keeps it serving; Ctrl-C ends it).
                   With --points FILE.json no page is served: the avatar is built from that file, as
                   `build PICTURE --character --points FILE.json` does.

          Models are looked for in --models DIR, $ESSENCE2_MODELS, ./models, models/ beside the command's
          directory, and PREFIX/share/essence2/models; each is checked against its sha256.

        """

    static func run(_ args: [String]) -> Int32 {
        guard let command = args.first else {
            printError(usage)
            return 2
        }
        let rest = Array(args.dropFirst())
        switch command {
        case "build": return build(rest)
        case "inspect": return inspect(rest)
        case "detect": return detect(rest)
        case "poses": return poses(rest)
        case "get": return get(rest)
        case "rig": return RigCommand.run(rest)
        case "-h", "--help", "help":
            print(usage, terminator: "")
            return 0
        default:
            printError("essence2 avatar: unknown subcommand '\(command)'\n" + usage)
            return 2
        }
    }

    static func inspect(_ args: [String]) -> Int32 {
        let json = args.contains("--json")
        let look = args.contains("--look")
        let args = args.filter { $0 != "--json" && $0 != "--look" }
        guard args.count == 1, let path = args.first, !path.hasPrefix("-") else {
            printError("essence2 avatar inspect: expects exactly one file\n" + usage)
            return 2
        }
        if look {
            // How a character looks against its picture: the rest frame, a closed blink, the mouth's motion.
            do {
                let avatar = try AvatarFile.read(path: path)
                guard let figures = CharacterLook(avatar: avatar) else {
                    printError("essence2 avatar inspect --look: \(path) is a photoreal avatar; --look measures characters")
                    return 2
                }
                print(String(decoding: JSONWriter.write(figures.json), as: UTF8.self))
                return 0
            } catch {
                printError("essence2 avatar inspect: \(path): \(error.reason)")
                return 4
            }
        }
        if json {
            let summary = AvatarFile.jsonSummary(path: path)
            print(String(decoding: JSONWriter.write(summary.json), as: UTF8.self))
            return summary.valid ? 0 : 4
        }
        let report = AvatarFile.describe(path: path)
        print(report, terminator: "")
        do {
            _ = try AvatarFile.read(path: path)
            return 0
        } catch {
            return 4
        }
    }

    /// Prints a command-line mistake of `essence2 avatar SUBCOMMAND` with the usage; returns exit status 2.
    static func usageError(_ subcommand: String, _ text: String) -> Int32 {
        printError("essence2 avatar \(subcommand): \(text)\n" + usage)
        return ExitStatus.usage
    }

    /// Says on standard error, in one line, that the portrait was turned or mirrored by its EXIF orientation
    /// (nothing when it was used as stored).
    static func reportOrientation(of image: ImageBuffer) {
        guard let orientation = image.orientation else { return }
        printError("essence2: applied the JPEG's EXIF orientation \(orientation.rawValue) (\(orientation.action))")
    }

    static func printError(_ text: String) {
        Console.error(text.hasSuffix("\n") ? text : text + "\n")
    }
}
