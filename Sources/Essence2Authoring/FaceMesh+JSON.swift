import Essence2Runtime

extension FaceMesh {
    /// Parses mesh JSON of the shape of `../shared/portraits/*.mesh.json`: `points`, 478 [x, y, z] in pixels,
    /// and `triangles`, [a, b, c] point indices. A top-level `width`/`height`, when present, must equal the
    /// portrait's size. Indices must exist and differ within a triangle.
    package static func parseJSON(_ bytes: [UInt8], width: Int, height: Int) throws(AvatarFileError) -> FaceMesh {
        func bad(_ what: String) -> AvatarFileError { AvatarFileError(.invalidInput, "mesh JSON: \(what)") }
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            throw bad("invalid JSON (\(error))")
        }
        guard json.objectValue != nil else { throw bad("not a JSON object") }
        try JSONGeometry.checkImageSize(json, width: width, height: height, label: "mesh JSON")
        guard let pointItems = json["points"]?.arrayValue else { throw bad("no \"points\" array") }
        guard pointItems.count == mediaPipePointCount else {
            throw bad("\(pointItems.count) points; expected \(mediaPipePointCount) (MediaPipe Face Mesh with iris refinement)")
        }
        var points: [SIMD3<Float>] = []
        for (i, item) in pointItems.enumerated() {
            guard let point = JSONGeometry.point3(item) else { throw bad("point \(i) is not [x, y, z]") }
            points.append(point)
        }
        guard let triangleItems = json["triangles"]?.arrayValue else { throw bad("no \"triangles\" array") }
        guard !triangleItems.isEmpty, triangleItems.count <= AvatarFileFormat.maxTriangles else {
            throw bad("\(triangleItems.count) triangles; expected 1...\(AvatarFileFormat.maxTriangles)")
        }
        var triangles: [SIMD3<UInt16>] = []
        for (i, item) in triangleItems.enumerated() {
            guard let corners = item.arrayValue, corners.count == 3 else { throw bad("triangle \(i) is not [a, b, c]") }
            let indices = corners.compactMap(\.intValue).filter { $0 >= 0 && $0 < points.count }
            guard indices.count == 3 else { throw bad("triangle \(i) has an index that is not a point number 0...\(points.count - 1)") }
            guard Set(indices).count == 3 else { throw bad("triangle \(i) repeats a point") }
            triangles.append(SIMD3(UInt16(indices[0]), UInt16(indices[1]), UInt16(indices[2])))
        }
        return FaceMesh(points: points, triangles: triangles)
    }
}
