/// The `rig` section of a character `.imx`: a UTF-8 JSON object (keys in docs/imx-format.md).
extension CharacterRig {
    /// Largest rig section.
    package static let maxSectionSize = 64 << 10

    /// Parses a rig section; every number must be finite (the geometry is checked by `validationProblem`).
    package static func decode(_ bytes: [UInt8]) throws(AvatarFileError) -> CharacterRig {
        func bad(_ what: String) -> AvatarFileError { AvatarFileError(.corrupt, "rig: \(what)") }
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            throw bad("invalid JSON (\(error))")
        }
        guard json.objectValue != nil else { throw bad("not a JSON object") }
        func point(_ key: String, optional: Bool = false) throws(AvatarFileError) -> SIMD2<Float>? {
            guard let value = json[key], value != .null else {
                if optional { return nil }
                throw bad("\"\(key)\" is missing")
            }
            guard let p = Self.point(value) else { throw bad("\"\(key)\" is not [x, y] of finite numbers") }
            return p
        }
        func number(_ key: String) throws(AvatarFileError) -> Float {
            guard let v = json[key]?.doubleValue, let f = Optional(Float(v)), f.isFinite else {
                throw bad("\"\(key)\" is missing or not a finite number")
            }
            return f
        }
        guard let styleName = json["mouth"]?.stringValue, let style = MouthStyle(rawValue: styleName) else {
            throw bad("\"mouth\" is not \"open\", \"closed\" or \"absent\"")
        }
        guard let outlineValues = json["outline"]?.arrayValue, outlineValues.count >= 3,
              outlineValues.count <= maxOutlinePoints else {
            throw bad("\"outline\" is not a list of 3...\(maxOutlinePoints) points")
        }
        var outline: [SIMD2<Float>] = []
        for value in outlineValues {
            guard let p = Self.point(value) else { throw bad("an outline point is not [x, y] of finite numbers") }
            outline.append(p)
        }
        guard let source = json["source"], source.objectValue != nil,
              let sw = source["width"]?.intValue, let sh = source["height"]?.intValue,
              let scale = source["scale"]?.doubleValue, let offset = source["offset"].flatMap(Self.point) else {
            throw bad("\"source\" is not {width, height, scale, offset}")
        }
        // Every point is checked by the unwrapping above; the force-unwraps below cannot fail.
        return CharacterRig(
            leftEye: try point("left_eye")!, rightEye: try point("right_eye")!,
            leftEyeRadius: try number("left_eye_radius"), rightEyeRadius: try number("right_eye_radius"),
            mouthLeft: try point("mouth_left")!, mouthRight: try point("mouth_right")!,
            mouthCenter: try point("mouth_center")!,
            leftBrow: try point("left_brow", optional: true), rightBrow: try point("right_brow", optional: true),
            mouth: style, mouthOpening: try number("mouth_opening"), outline: outline,
            sourceWidth: sw, sourceHeight: sh, sourceScale: Float(scale), sourceOffset: offset)
    }

    private static func point(_ value: JSONValue) -> SIMD2<Float>? {
        guard let items = value.arrayValue, items.count == 2, let x = items[0].doubleValue, let y = items[1].doubleValue
        else { return nil }
        let p = SIMD2(Float(x), Float(y))
        return p.x.isFinite && p.y.isFinite ? p : nil
    }

    /// The first way this rig breaks the rules for a `width` x `height` frame, or nil.
    package func validationProblem(width: Int, height: Int) -> String? {
        let w = Float(width), h = Float(height)
        func inside(_ p: SIMD2<Float>) -> Bool {
            p.x.isFinite && p.y.isFinite && p.x >= 0 && p.y >= 0 && p.x <= w && p.y <= h
        }
        for (name, p) in namedPoints where !inside(p) {
            return "rig point '\(name)' (\(p.x), \(p.y)) is outside the \(width)x\(height) frame"
        }
        for (i, p) in outline.enumerated() where !inside(p) {
            return "rig outline point \(i) (\(p.x), \(p.y)) is outside the \(width)x\(height) frame"
        }
        guard outline.count >= 3, outline.count <= Self.maxOutlinePoints else { return "rig outline has \(outline.count) points" }
        let side = Float(max(width, height))
        for (name, r) in [("left_eye_radius", leftEyeRadius), ("right_eye_radius", rightEyeRadius)]
        where !(r.isFinite && r >= 0.5 && r <= side / 4) {
            return "rig \(name) \(r) is outside 0.5...\(side / 4)"
        }
        guard mouthOpening.isFinite, mouthOpening >= 0, mouthOpening <= side / 4 else {
            return "rig mouth_opening \(mouthOpening) is outside 0...\(side / 4)"
        }
        guard mouth == .open || mouthOpening == 0 else { return "rig mouth_opening must be 0 unless the mouth is open" }
        let mouthWidth = mouthRight.x - mouthLeft.x
        guard mouthWidth >= 2 else { return "rig mouth_right must be at least 2 pixels right of mouth_left" }
        guard rightEye.x - leftEye.x >= 2 else { return "rig right_eye must be at least 2 pixels right of left_eye" }
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
        func num(_ v: Float) -> String {
            let r = (Double(v) * 1000).rounded() / 1000
            return r == r.rounded() && abs(r) < 1e15 ? String(Int(r)) : String(r)
        }
        func pt(_ p: SIMD2<Float>) -> String { "[\(num(p.x)), \(num(p.y))]" }
        var parts = [
            "\"left_eye\": \(pt(leftEye))", "\"right_eye\": \(pt(rightEye))",
            "\"left_eye_radius\": \(num(leftEyeRadius))", "\"right_eye_radius\": \(num(rightEyeRadius))",
            "\"mouth_left\": \(pt(mouthLeft))", "\"mouth_right\": \(pt(mouthRight))",
            "\"mouth_center\": \(pt(mouthCenter))", "\"mouth\": \"\(mouth.rawValue)\"",
            "\"mouth_opening\": \(num(mouthOpening))",
        ]
        if let leftBrow { parts.append("\"left_brow\": \(pt(leftBrow))") }
        if let rightBrow { parts.append("\"right_brow\": \(pt(rightBrow))") }
        parts.append("\"outline\": [\(outline.map(pt).joined(separator: ", "))]")
        parts.append("\"source\": {\"width\": \(sourceWidth), \"height\": \(sourceHeight), \"scale\": \(Double(sourceScale)), \"offset\": \(pt(sourceOffset))}")
        return Array(("{" + parts.joined(separator: ", ") + "}").utf8)
    }
}
