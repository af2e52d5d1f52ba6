import Essence2Runtime
import Essence2Authoring
import FoundationEssentials
import Glibc

/// What the rig editor's server does for its page: the page itself, the picture, the starting points, previews
/// rendered from the page's points, and the save that writes the avatar and its points file.
final class RigEditor {
    let options: RigOptions
    let image: ImageBuffer
    let backdrop: CharacterAvatarBuilder.Backdrop
    /// The points the page starts from, and what it says about them.
    let start: CharacterPoints
    /// Further faces the finder found in the picture, largest first (the page offers them beside `start`).
    let otherFaces: [CharacterPoints]
    let note: String
    /// Set by a save; the command stops serving then unless `--keep`.
    private(set) var saves = 0
    private var pictureFile: [UInt8]?
    /// The last avatar built, and the points it was built from.
    private var built: (points: CharacterPoints, avatar: Avatar)?

    init(options: RigOptions, image: ImageBuffer, backdrop: CharacterAvatarBuilder.Backdrop,
         start: CharacterPoints, otherFaces: [CharacterPoints] = [], note: String) {
        self.options = options
        self.image = image
        self.backdrop = backdrop
        self.start = start
        self.otherFaces = otherFaces
        self.note = note
    }

    func handle(_ request: RigHTTPRequest) -> RigHTTPResponse {
        do throws(RigHTTPResponse) {
            switch (request.method, request.path) {
            case ("GET", "/"), ("GET", "/index.html"): return .html(RigPage.html)
            case ("GET", "/picture"): return try picture()
            case ("GET", "/state"): return state()
            case ("POST", "/preview"): return try preview(request.body)
            case ("POST", "/previews"): return try previews(request.body)
            case ("POST", "/look"): return try look(request.body)
            case ("POST", "/snap"): return try snap(request.body)
            case ("POST", "/place"): return try place(request.body)
            case ("POST", "/save"): return try save(request.body)
            case (_, "/"), (_, "/index.html"), (_, "/picture"), (_, "/state"), (_, "/preview"), (_, "/previews"),
                 (_, "/look"), (_, "/snap"), (_, "/place"), (_, "/save"):
                return .text(405, "\(request.method) is not allowed on \(request.path)")
            default:
                return .text(404, "no such page: \(request.path)")
            }
        } catch {
            return error
        }
    }

    /// The picture as decoded (upright, composited onto white), as a PNG: the points' pixels are its pixels.
    private func picture() throws(RigHTTPResponse) -> RigHTTPResponse {
        if pictureFile == nil {
            do {
                pictureFile = try RigPNG.encode(bgr: image.bgr, width: image.width, height: image.height)
            } catch {
                throw .text(500, "cannot encode the picture: \(error)")
            }
        }
        return .png(pictureFile!)
    }

    /// The picture's size, the starting points, the faces offered (the starting points first, then any further
    /// face found), the note on them, and where a save writes.
    private func state() -> RigHTTPResponse {
        let faces = ([start] + otherFaces).map { String(decoding: $0.jsonBytes(), as: UTF8.self) }
        let text = "{\"width\":\(image.width),\"height\":\(image.height),\"points\":"
            + String(decoding: start.jsonBytes(), as: UTF8.self) + ",\"faces\":[" + faces.joined(separator: ",") + "]"
            + ",\"note\":\(string(note)),\"output\":\(string(options.output)),"
            + "\"points_output\":\(string(options.pointsOutput)),\"keep\":\(options.keep)}"
        return .json(Array(text.utf8))
    }

    /// `text` as a JSON string.
    private func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// The points of a request's body (a points file's object); 400 with the reason when they are not.
    private func points(_ body: [UInt8]) throws(RigHTTPResponse) -> CharacterPoints {
        guard !body.isEmpty else { throw .text(400, "bad request: no body (send the points as JSON)") }
        do {
            return try CharacterPoints.decode(body, width: image.width, height: image.height)
        } catch {
            throw .text(400, "bad request: \(error.reason)")
        }
    }

    /// The avatar `points` make; the last one is kept, as the page asks for its previews, its measurements and
    /// its save with the same points one after the other (the build is deterministic).
    private func avatar(_ points: CharacterPoints) throws(RigHTTPResponse) -> Avatar {
        if let built, built.points == points { return built.avatar }
        do {
            let made = try AvatarCommand.makeCharacter(image: image, picture: options.picture, points: points, backdrop: backdrop,
                                                       name: options.name, size: options.size, seed: AvatarBuilder.defaultSeed)
            built = (points, made)
            return made
        } catch {
            throw .text(400, "these points make no avatar: \(error.message)")
        }
    }

    /// A frame of the avatar the points make, as a PNG: the body's `jaw` (0...1, default 0.8) opens the mouth,
    /// its `blink` (0...1, default 1) closes the eyes.
    private func preview(_ body: [UInt8]) throws(RigHTTPResponse) -> RigHTTPResponse {
        let points = try points(body)
        let json = try? JSONParser.parse(body)
        func amount(_ name: String, _ otherwise: Float) throws(RigHTTPResponse) -> Float {
            guard let value = json?[name], value != .null else { return otherwise }
            guard let number = value.doubleValue, number.isFinite, (0...1).contains(number) else {
                throw .text(400, "bad request: \"\(name)\" is not a number of 0...1")
            }
            return Float(number)
        }
        let params = FrameParams(articulation: Articulation(jawOpen: try amount("jaw", 0.8)),
                                 pose: FacePose(blink: try amount("blink", 1)))
        let avatar = try avatar(points)
        let renderer = avatar.makeRenderer()
        var frame = [UInt8](repeating: 0, count: avatar.width * avatar.height * 3)
        frame.withUnsafeMutableBytes { _ = renderer.render(params, mode: .full, into: $0, over: nil) }
        do {
            return .png(try RigPNG.encode(bgr: frame, width: avatar.width, height: avatar.height))
        } catch {
            throw .text(500, "cannot encode the preview: \(error)")
        }
    }

    /// The rest face, a full blink and the mouth open (jaw 0.8), side by side in one PNG (three frames wide), all
    /// from one build of the body's points.
    private func previews(_ body: [UInt8]) throws(RigHTTPResponse) -> RigHTTPResponse {
        let avatar = try avatar(try points(body))
        let renderer = avatar.makeRenderer()
        let (w, h) = (avatar.width, avatar.height)
        var strip = [UInt8](repeating: 0, count: 3 * w * h * 3)
        var frame = [UInt8](repeating: 0, count: w * h * 3)
        let shown = [FrameParams(), FrameParams(pose: FacePose(blink: 1)),
                     FrameParams(articulation: Articulation(jawOpen: 0.8))]
        for (k, params) in shown.enumerated() {
            frame.withUnsafeMutableBytes { _ = renderer.render(params, mode: .full, into: $0, over: nil) }
            for y in 0..<h {
                strip.replaceSubrange((y * 3 * w + k * w) * 3..<(y * 3 * w + (k + 1) * w) * 3,
                                      with: frame[y * w * 3..<(y + 1) * w * 3])
            }
        }
        do {
            return .png(try RigPNG.encode(bgr: strip, width: 3 * w, height: h))
        } catch {
            throw .text(500, "cannot encode the previews: \(error)")
        }
    }

    /// What the avatar the body's points make looks like against the picture (`avatar inspect --look`'s JSON):
    /// each eye as measured (open, closed, opaque or hidden, and its extent), what a blink leaves of it, and
    /// whether the rest face is the picture.
    private func look(_ body: [UInt8]) throws(RigHTTPResponse) -> RigHTTPResponse {
        let avatar = try avatar(try points(body))
        guard let measured = CharacterLook(avatar: avatar) else { throw .text(500, "the avatar is not a character") }
        return .json(JSONWriter.write(measured.json))
    }

    /// The body's points with the one its `snap` names ("left_eye", "right_eye", "mouth_left", "mouth_right" or
    /// "mouth_center") moved onto the feature it was dropped near (`CharacterPointFinder.snap`; kept where the
    /// network sees nothing within reach).
    private func snap(_ body: [UInt8]) throws(RigHTTPResponse) -> RigHTTPResponse {
        let given = try points(body)
        guard case .string(let name)? = (try? JSONParser.parse(body))?["snap"],
              let which = CharacterPointFinder.SnappedPoint(name: name) else {
            throw .text(400, "bad request: \"snap\" names no point (left_eye, right_eye, mouth_left, mouth_right or mouth_center)")
        }
        do {
            let snapped = try CharacterPointFinder.snap(which, of: given, bgr: image.bgr, alpha: image.alpha,
                                                        width: image.width, height: image.height)
            return .json(snapped.jsonBytes())
        } catch {
            throw .text(500, "cannot snap: \(error)")
        }
    }

    /// A whole rig from three clicks: the body's `left_eye`, `right_eye` and `mouth_center` ([x, y] picture pixels;
    /// the eyes in either order), each snapped to the picture, the mouth's corners and drawing found
    /// (`CharacterPointFinder.place`).
    private func place(_ body: [UInt8]) throws(RigHTTPResponse) -> RigHTTPResponse {
        let json = try? JSONParser.parse(body)
        func click(_ name: String) throws(RigHTTPResponse) -> SIMD2<Float> {
            guard case .array(let xy)? = json?[name], xy.count == 2, let x = xy[0].doubleValue, let y = xy[1].doubleValue,
                  x.isFinite, y.isFinite, (0...Double(image.width)).contains(x), (0...Double(image.height)).contains(y) else {
                throw .text(400, "bad request: \"\(name)\" is not a point [x, y] inside the \(image.width) x \(image.height) picture")
            }
            return SIMD2(Float(x), Float(y))
        }
        let (a, b, m) = (try click("left_eye"), try click("right_eye"), try click("mouth_center"))
        do {
            let placed = try CharacterPointFinder.place(eyes: a, b, mouth: m, bgr: image.bgr, alpha: image.alpha,
                                                        width: image.width, height: image.height)
            return .json(placed.jsonBytes())
        } catch CharacterPointFinderError.badPoints(let reason) {
            throw .text(400, "bad request: \(reason)")
        } catch {
            throw .text(500, "cannot place the points: \(error)")
        }
    }

    /// Writes the avatar and the points file, as `avatar build --character --points` would from that file.
    private func save(_ body: [UInt8]) throws(RigHTTPResponse) -> RigHTTPResponse {
        let points = try points(body)
        let avatar = try avatar(points)
        let info = [
            "builder": "essence2 avatar rig",
            "picture": URL(fileURLWithPath: options.picture).lastPathComponent,
            "points": "placed in the rig editor: " + URL(fileURLWithPath: options.pointsOutput).lastPathComponent,
        ]
        do {
            try AvatarCommand.writeCharacter(avatar, points: points, output: options.output, info: info)
            try BinaryFile.write(points.jsonBytes(), to: options.pointsOutput)
        } catch {
            AvatarCommand.printError("essence2 avatar rig: \(error)")
            throw .text(500, "cannot save: \(error)")
        }
        print("wrote \(options.pointsOutput)")
        fflush(nil)  // stdout may be a pipe: say it now
        saves += 1
        return .json(Array("{\"imx\":\(string(options.output)),\"points\":\(string(options.pointsOutput)),\"keep\":\(options.keep)}".utf8))
    }
}
