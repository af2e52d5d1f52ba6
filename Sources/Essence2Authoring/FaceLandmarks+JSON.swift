import Essence2Runtime

extension FaceLandmarks {
    /// Parses landmark JSON of the shape of `../shared/portraits/*.landmarks.json`: an object whose
    /// `mediapipe` member (or the object itself) holds `points` (the named points as [x, y]),
    /// `lips_outer_polygon` and `lips_inner_polygon` (20 [x, y] each), `face_box_xyxy` and `mouth_box_xyxy`
    /// ([x0, y0, x1, y1]). A top-level `width`/`height`, when present, must equal the portrait's size.
    /// Boxes are rounded outward to whole pixels and clipped to the portrait; points are taken as they are
    /// (the builder checks that they lie inside the portrait).
    package static func parseJSON(_ bytes: [UInt8], width: Int, height: Int) throws(AvatarFileError) -> FaceLandmarks {
        func bad(_ what: String) -> AvatarFileError { AvatarFileError(.invalidInput, "landmark JSON: \(what)") }
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            throw bad("invalid JSON (\(error))")
        }
        guard json.objectValue != nil else { throw bad("not a JSON object") }
        try JSONGeometry.checkImageSize(json, width: width, height: height, label: "landmark JSON")
        let root = json["mediapipe"] ?? json
        guard let pointMembers = root["points"]?.objectValue else { throw bad("no \"points\" object") }
        var points: [String: SIMD2<Float>] = [:]
        for member in pointMembers {
            guard let point = JSONGeometry.point2(member.value) else { throw bad("point \"\(member.key)\" is not [x, y]") }
            points[member.key] = point
        }
        for name in requiredPointNames where points[name] == nil { throw bad("point \"\(name)\" is missing") }
        var outlines: [[SIMD2<Float>]] = []
        for key in ["lips_outer_polygon", "lips_inner_polygon"] {
            guard let items = root[key]?.arrayValue else { throw bad("no \"\(key)\" array") }
            guard items.count == lipPointCount else { throw bad("\"\(key)\" has \(items.count) points; expected \(lipPointCount)") }
            var outline: [SIMD2<Float>] = []
            for (i, item) in items.enumerated() {
                guard let point = JSONGeometry.point2(item) else { throw bad("\"\(key)\" item \(i) is not [x, y]") }
                outline.append(point)
            }
            outlines.append(outline)
        }
        var boxes: [PixelRect] = []
        for key in ["face_box_xyxy", "mouth_box_xyxy"] {
            guard let box = root[key].flatMap({ JSONGeometry.box(from: $0, width: width, height: height) }) else {
                throw bad("\"\(key)\" is missing, not [x0, y0, x1, y1] or does not overlap the \(width)x\(height) portrait")
            }
            boxes.append(box)
        }
        return FaceLandmarks(points: points, lipsOuter: outlines[0], lipsInner: outlines[1],
                             faceBox: boxes[0], mouthBox: boxes[1])
    }
}
