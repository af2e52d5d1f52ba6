/// The `rig` section of a character `.imx`: a UTF-8 JSON object (keys in docs/imx-format.md).
extension CharacterRig {
    /// Largest rig section.
    package static let maxSectionSize = 64 << 10

    /// Parses a rig section: the points' one coding (`CharacterPoints+JSON`) with every member given, and `source`
    /// ({width, height, scale, offset}); every number must be finite (the geometry is checked by `validationProblem`).
    package static func decode(_ bytes: [UInt8]) throws(AvatarFileError) -> CharacterRig {
        func bad(_ what: String) -> AvatarFileError { AvatarFileError(.corrupt, "rig: \(what)") }
        let json = try CharacterPoints.parse(bytes, label: "rig")
        let points = try CharacterPoints.decode(json, label: "rig", picture: nil)
        for (key, value) in [("left_eye_radius", points.leftEyeRadius), ("right_eye_radius", points.rightEyeRadius),
                             ("mouth_opening", points.mouthOpening)] where value == nil {
            throw bad("\"\(key)\" is missing or not a finite number")
        }
        guard points.outline.count >= 3 else { throw bad("\"outline\" is not a list of 3...\(maxOutlinePoints) points") }
        guard let source = json["source"], source.objectValue != nil,
              let sw = source["width"]?.intValue, let sh = source["height"]?.intValue,
              let scale = source["scale"]?.doubleValue, let offset = source["offset"].flatMap(JSONGeometry.point2),
              Float(scale).isFinite, offset.x.isFinite, offset.y.isFinite else {
            throw bad("\"source\" is not {width, height, scale, offset}")
        }
        return CharacterRig(points: points, sourceWidth: sw, sourceHeight: sh, sourceScale: Float(scale), sourceOffset: offset)
    }

    /// The first way this rig breaks the rules for a `width` x `height` frame, or nil.
    package func validationProblem(width: Int, height: Int) -> String? {
        let w = Float(width), h = Float(height)
        func inside(_ p: SIMD2<Float>) -> Bool {
            p.x.isFinite && p.y.isFinite && p.x >= 0 && p.y >= 0 && p.x <= w && p.y <= h
        }
        for (name, p) in points.namedPoints where !inside(p) {
            return "rig point '\(name)' (\(p.x), \(p.y)) is outside the \(width)x\(height) frame"
        }
        for (i, p) in points.outline.enumerated() where !inside(p) {
            return "rig outline point \(i) (\(p.x), \(p.y)) is outside the \(width)x\(height) frame"
        }
        guard points.outline.count >= 3, points.outline.count <= Self.maxOutlinePoints else { return "rig outline has \(points.outline.count) points" }
        let side = Float(max(width, height))
        for (name, r) in [("left_eye_radius", leftEyeRadius), ("right_eye_radius", rightEyeRadius)]
        where !(r.isFinite && r >= 0.5 && r <= side / 4) {
            return "rig \(name) \(r) is outside 0.5...\(side / 4)"
        }
        guard mouthOpening.isFinite, mouthOpening >= 0, mouthOpening <= side / 4 else {
            return "rig mouth_opening \(mouthOpening) is outside 0...\(side / 4)"
        }
        guard points.mouth == .open || mouthOpening == 0 else { return "rig mouth_opening must be 0 unless the mouth is open" }
        let mouthWidth = points.mouthRight.x - points.mouthLeft.x
        guard mouthWidth >= 2 else { return "rig mouth_right must be at least 2 pixels right of mouth_left" }
        guard points.rightEye.x - points.leftEye.x >= 2 else { return "rig right_eye must be at least 2 pixels right of left_eye" }
        guard sourceWidth >= 1, sourceHeight >= 1, sourceWidth <= AvatarFileFormat.maxSide,
              sourceHeight <= AvatarFileFormat.maxSide else {
            return "rig source size \(sourceWidth)x\(sourceHeight) outside the limits"
        }
        guard sourceScale.isFinite, sourceScale > 1e-4, sourceScale < 1e4,
              sourceOffset.x.isFinite, sourceOffset.y.isFinite, abs(sourceOffset.x) < 1e6, abs(sourceOffset.y) < 1e6 else {
            return "rig source placement is not finite or out of range"
        }
        return nil
    }

    /// The rig section's JSON text (what `decode` reads).
    package func encoded() -> [UInt8] {
        let source: [JSONMember] = [
            JSONMember("width", .number(String(sourceWidth))), JSONMember("height", .number(String(sourceHeight))),
            JSONMember("scale", .number(String(Double(sourceScale)))), JSONMember("offset", CharacterPoints.json(sourceOffset)),
        ]
        return JSONWriter.write(.object(points.jsonMembers + [JSONMember("source", .object(source))]))
    }
}
