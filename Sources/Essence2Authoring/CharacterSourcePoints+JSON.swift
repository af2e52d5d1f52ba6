import Essence2Runtime

extension CharacterSourcePoints {
    /// Reads a points file: an object with `left_eye`, `right_eye`, `mouth_left`, `mouth_right`, `mouth_center`
    /// as [x, y] in the source picture's pixels, `mouth` ("open", "closed" or "absent"), and optionally
    /// `left_eye_radius`, `right_eye_radius`, `left_brow`, `right_brow`, `mouth_opening` and `outline`
    /// ([[x, y], ...]). Every point must be finite and inside the `width` x `height` picture.
    package static func decode(_ bytes: [UInt8], width: Int, height: Int) throws(AvatarFileError) -> CharacterSourcePoints {
        func bad(_ what: String) -> AvatarFileError { AvatarFileError(.corrupt, "points: \(what)") }
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            throw bad("invalid JSON (\(error))")
        }
        guard json.objectValue != nil else { throw bad("not a JSON object") }
        let w = Float(width), h = Float(height)
        func point(_ value: JSONValue, _ name: String) throws(AvatarFileError) -> SIMD2<Float> {
            guard let items = value.arrayValue, items.count == 2, items[0].doubleValue != nil, items[1].doubleValue != nil
            else { throw bad("\"\(name)\" is not [x, y] of two numbers") }
            guard let p = JSONGeometry.point2(value), p.x.isFinite, p.y.isFinite else {
                // A number too large for a pixel position (1e308 reads as infinite in 32 bits) is outside too.
                throw bad("\"\(name)\" is outside the \(width)x\(height) picture (its numbers are not pixel positions)")
            }
            guard p.x >= 0, p.y >= 0, p.x <= w, p.y <= h else {
                throw bad("\"\(name)\" (\(p.x), \(p.y)) is outside the \(width)x\(height) picture")
            }
            return p
        }
        func required(_ name: String) throws(AvatarFileError) -> SIMD2<Float> {
            guard let value = json[name] else { throw bad("\"\(name)\" is missing") }
            return try point(value, name)
        }
        func optional(_ name: String) throws(AvatarFileError) -> SIMD2<Float>? {
            guard let value = json[name], value != .null else { return nil }
            return try point(value, name)
        }
        func length(_ name: String) throws(AvatarFileError) -> Float? {
            guard let value = json[name], value != .null else { return nil }
            guard let v = value.doubleValue, v >= 0, v <= Double(max(width, height)) else {
                throw bad("\"\(name)\" is not a length of 0...\(max(width, height)) pixels")
            }
            return Float(v)
        }
        guard let styleName = json["mouth"]?.stringValue, let style = CharacterRig.MouthStyle(rawValue: styleName) else {
            throw bad("\"mouth\" is not \"open\", \"closed\" or \"absent\"")
        }
        var outline: [SIMD2<Float>] = []
        if let value = json["outline"], value != .null {
            guard let items = value.arrayValue, items.isEmpty || (3...CharacterRig.maxOutlinePoints).contains(items.count) else {
                throw bad("\"outline\" is not a list of 3...\(CharacterRig.maxOutlinePoints) points")
            }
            for (i, item) in items.enumerated() { outline.append(try point(item, "outline[\(i)]")) }
        }
        let points = CharacterSourcePoints(
            leftEye: try required("left_eye"), rightEye: try required("right_eye"),
            leftEyeRadius: try length("left_eye_radius"), rightEyeRadius: try length("right_eye_radius"),
            mouthLeft: try required("mouth_left"), mouthRight: try required("mouth_right"),
            mouthCenter: try required("mouth_center"), leftBrow: try optional("left_brow"),
            rightBrow: try optional("right_brow"), mouth: style, mouthOpening: try length("mouth_opening"),
            outline: outline)
        guard points.rightEye.x - points.leftEye.x >= 2 else {
            throw bad("\"right_eye\" must lie at least 2 pixels right of \"left_eye\" (left is the picture's left)")
        }
        guard points.mouthRight.x - points.mouthLeft.x >= 2 else {
            throw bad("\"mouth_right\" must lie at least 2 pixels right of \"mouth_left\"")
        }
        return points
    }

    /// The points as a points file (what `decode` reads).
    package func jsonBytes() -> [UInt8] {
        func num(_ v: Float) -> JSONValue { .number(String((Double(v) * 100).rounded() / 100)) }
        func pt(_ p: SIMD2<Float>) -> JSONValue { .array([num(p.x), num(p.y)]) }
        var members: [JSONMember] = [
            JSONMember("left_eye", pt(leftEye)), JSONMember("right_eye", pt(rightEye)),
            JSONMember("mouth_left", pt(mouthLeft)), JSONMember("mouth_right", pt(mouthRight)),
            JSONMember("mouth_center", pt(mouthCenter)), JSONMember("mouth", .string(mouth.rawValue)),
        ]
        if let leftEyeRadius { members.append(JSONMember("left_eye_radius", num(leftEyeRadius))) }
        if let rightEyeRadius { members.append(JSONMember("right_eye_radius", num(rightEyeRadius))) }
        if let leftBrow { members.append(JSONMember("left_brow", pt(leftBrow))) }
        if let rightBrow { members.append(JSONMember("right_brow", pt(rightBrow))) }
        if let mouthOpening { members.append(JSONMember("mouth_opening", num(mouthOpening))) }
        if !outline.isEmpty { members.append(JSONMember("outline", .array(outline.map(pt)))) }
        return JSONWriter.write(.object(members))
    }
}
