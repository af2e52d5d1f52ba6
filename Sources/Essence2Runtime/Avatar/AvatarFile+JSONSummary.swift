extension AvatarFile {
    /// `essence2 avatar inspect --json`: one JSON object describing the avatar (or why it is invalid):
    /// `valid`, `kind` ("character" or "photoreal"), `name`, `width`, `height`, `frames_per_second`,
    /// `samples_per_frame`, `head_box`, and `points` (frame pixels) with `left_eye`, `right_eye`, `mouth_left`,
    /// `mouth_right`, `mouth_center` (left is the picture's left) and, for a character, the brows where there
    /// are any, `source_points` (the same points in the source picture's pixels), `source_width`,
    /// `source_height`, `mouth` and `outline`. An invalid file gives `valid: false` and `error`.
    package static func jsonSummary(path: String) -> (json: JSONValue, valid: Bool) {
        let avatar: Avatar
        do {
            avatar = try read(path: path)
        } catch {
            return (.object([JSONMember("valid", .bool(false)), JSONMember("error", .string(error.reason)),
                             JSONMember("error_kind", .string(error.kind.rawValue))]), false)
        }
        func num(_ v: Float) -> JSONValue { .number(String((Double(v) * 100).rounded() / 100)) }
        func pt(_ p: SIMD2<Float>) -> JSONValue { .array([num(p.x), num(p.y)]) }
        var members: [JSONMember] = [
            JSONMember("valid", .bool(true)),
            JSONMember("kind", .string(avatar.kindName)),
            JSONMember("name", .string(avatar.name)),
            JSONMember("width", .number(String(avatar.width))),
            JSONMember("height", .number(String(avatar.height))),
            JSONMember("frames_per_second", .number(String(avatar.cadence.framesPerSecond))),
            JSONMember("samples_per_frame", .number(String(avatar.cadence.samplesPerFrame))),
            JSONMember("head_box", .array([avatar.headBox.x, avatar.headBox.y, avatar.headBox.width, avatar.headBox.height]
                .map { .number(String($0)) })),
        ]
        if let rig = avatar.character {
            members.append(JSONMember("points", .object(rig.namedPoints.map { JSONMember($0.name, pt($0.point)) })))
            members.append(JSONMember("source_points", .object(rig.namedPoints.map { JSONMember($0.name, pt(rig.sourcePoint($0.point))) })))
            members.append(JSONMember("source_width", .number(String(rig.sourceWidth))))
            members.append(JSONMember("source_height", .number(String(rig.sourceHeight))))
            members.append(JSONMember("eye_radius", .array([num(rig.leftEyeRadius), num(rig.rightEyeRadius)])))
            members.append(JSONMember("mouth", .string(rig.mouth.rawValue)))
            members.append(JSONMember("outline", .array(rig.outline.map(pt))))
        } else {
            // The portrait's landmarks are named for the subject's own sides: the picture's left eye is the
            // subject's right.
            let p = avatar.landmarks.points
            let named: [(String, SIMD2<Float>?)] = [
                ("left_eye", p["right_iris_center"]), ("right_eye", p["left_iris_center"]),
                ("mouth_left", p["mouth_corner_right"]), ("mouth_right", p["mouth_corner_left"]),
                ("mouth_center", p["upper_lip_inner_center"].flatMap { u in p["lower_lip_inner_center"].map { (u + $0) / 2 } }),
            ]
            members.append(JSONMember("points", .object(named.compactMap { name, point in point.map { JSONMember(name, pt($0)) } })))
        }
        return (.object(members), true)
    }
}
