/// The one JSON coding of a character's points: an object with `left_eye`, `right_eye`, `mouth_left`,
/// `mouth_right`, `mouth_center` as [x, y], `mouth` ("open", "closed" or "absent"), and optionally
/// `left_eye_radius`, `right_eye_radius`, `left_brow`, `right_brow`, `mouth_opening` and `outline` ([[x, y], ...]).
/// A points file (`--points`, the rig editor) is this object in the source picture's pixels; a character `.imx`'s
/// rig section is this object in the frame's pixels with every member given, plus `source` (`CharacterRig+JSON`).
extension CharacterPoints {
    /// Reads a points file for a `width` x `height` picture: every point must be finite and inside it, every length
    /// within 0 and its larger side.
    package static func decode(_ bytes: [UInt8], width: Int, height: Int) throws(AvatarFileError) -> CharacterPoints {
        try decode(parse(bytes, label: "points"), label: "points", picture: (width, height))
    }

    /// Parses `bytes` as a JSON object, or throws a `corrupt` error that starts with `label`.
    package static func parse(_ bytes: [UInt8], label: String) throws(AvatarFileError) -> JSONValue {
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            throw AvatarFileError(.corrupt, "\(label): invalid JSON (\(error))")
        }
        guard json.objectValue != nil else { throw AvatarFileError(.corrupt, "\(label): not a JSON object") }
        return json
    }

    /// Reads the points from a JSON object. With `picture`, every point must lie inside it and every length within
    /// 0 and its larger side; without, points and lengths must be finite (a rig is checked against its frame by
    /// `CharacterRig.validationProblem`). Errors are `corrupt` and start with `label`.
    package static func decode(_ json: JSONValue, label: String, picture: (width: Int, height: Int)?)
        throws(AvatarFileError) -> CharacterPoints {
        func bad(_ what: String) -> AvatarFileError { AvatarFileError(.corrupt, "\(label): \(what)") }
        func point(_ value: JSONValue, _ name: String) throws(AvatarFileError) -> SIMD2<Float> {
            guard let items = value.arrayValue, items.count == 2, items[0].doubleValue != nil, items[1].doubleValue != nil
            else { throw bad("\"\(name)\" is not [x, y] of two numbers") }
            guard let (width, height) = picture else {
                guard let p = JSONGeometry.point2(value), p.x.isFinite, p.y.isFinite else {
                    throw bad("\"\(name)\" is outside the frame (its numbers are not pixel positions)")
                }
                return p
            }
            guard let p = JSONGeometry.point2(value), p.x.isFinite, p.y.isFinite else {
                // A number too large for a pixel position (1e308 reads as infinite in 32 bits) is outside too.
                throw bad("\"\(name)\" is outside the \(width)x\(height) picture (its numbers are not pixel positions)")
            }
            guard p.x >= 0, p.y >= 0, p.x <= Float(width), p.y <= Float(height) else {
                throw bad("\"\(name)\" (\(p.x), \(p.y)) is outside the \(width)x\(height) picture")
            }
            return p
        }
        func required(_ name: String) throws(AvatarFileError) -> SIMD2<Float> {
            guard let value = json[name], value != .null else { throw bad("\"\(name)\" is missing") }
            return try point(value, name)
        }
        func optional(_ name: String) throws(AvatarFileError) -> SIMD2<Float>? {
            guard let value = json[name], value != .null else { return nil }
            return try point(value, name)
        }
        func length(_ name: String) throws(AvatarFileError) -> Float? {
            guard let value = json[name], value != .null else { return nil }
            if let (width, height) = picture {
                guard let v = value.doubleValue, v >= 0, v <= Double(max(width, height)) else {
                    throw bad("\"\(name)\" is not a length of 0...\(max(width, height)) pixels")
                }
                return Float(v)
            }
            guard let v = value.doubleValue, Float(v).isFinite else { throw bad("\"\(name)\" is not a finite number") }
            return Float(v)
        }
        guard let styleName = json["mouth"]?.stringValue, let style = MouthStyle(rawValue: styleName) else {
            throw bad("\"mouth\" is not \"open\", \"closed\" or \"absent\"")
        }
        var outline: [SIMD2<Float>] = []
        if let value = json["outline"], value != .null {
            guard let items = value.arrayValue, items.isEmpty || (3...maxOutlinePoints).contains(items.count) else {
                throw bad("\"outline\" is not a list of 3...\(maxOutlinePoints) points")
            }
            for (i, item) in items.enumerated() { outline.append(try point(item, "outline[\(i)]")) }
        }
        let points = CharacterPoints(
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

    /// The points' members (what `decode` reads), numbers to a thousandth of a pixel; absent ones left out.
    package var jsonMembers: [JSONMember] {
        var members: [JSONMember] = [
            JSONMember("left_eye", Self.json(leftEye)), JSONMember("right_eye", Self.json(rightEye)),
            JSONMember("mouth_left", Self.json(mouthLeft)), JSONMember("mouth_right", Self.json(mouthRight)),
            JSONMember("mouth_center", Self.json(mouthCenter)), JSONMember("mouth", .string(mouth.rawValue)),
        ]
        if let leftEyeRadius { members.append(JSONMember("left_eye_radius", Self.json(leftEyeRadius))) }
        if let rightEyeRadius { members.append(JSONMember("right_eye_radius", Self.json(rightEyeRadius))) }
        if let leftBrow { members.append(JSONMember("left_brow", Self.json(leftBrow))) }
        if let rightBrow { members.append(JSONMember("right_brow", Self.json(rightBrow))) }
        if let mouthOpening { members.append(JSONMember("mouth_opening", Self.json(mouthOpening))) }
        if !outline.isEmpty { members.append(JSONMember("outline", .array(outline.map(Self.json)))) }
        return members
    }

    /// The points as a points file (what `decode(_:width:height:)` reads).
    package func jsonBytes() -> [UInt8] { JSONWriter.write(.object(jsonMembers)) }

    /// A length or coordinate to a thousandth, written without a fraction when whole.
    package static func json(_ v: Float) -> JSONValue {
        let r = (Double(v) * 1000).rounded() / 1000
        return .number(r == r.rounded() && abs(r) < 1e15 ? String(Int(r)) : String(r))
    }

    /// A point as [x, y].
    package static func json(_ p: SIMD2<Float>) -> JSONValue { .array([json(p.x), json(p.y)]) }
}
