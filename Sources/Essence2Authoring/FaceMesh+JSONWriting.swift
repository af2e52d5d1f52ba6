import Essence2Runtime

extension FaceMesh {
    /// This mesh as JSON of the shape `AvatarBuilder` reads with `--mesh` (`../shared/portraits/*.mesh.json`):
    /// `points` as [x, y, z] pixels rounded to 0.01 and `triangles` as [a, b, c].
    package func jsonBytes(image: String, width: Int, height: Int, model: String) -> [UInt8] {
        let root = JSONValue.object([
            JSONMember("image", .string(image)),
            JSONMember("width", .number(String(width))),
            JSONMember("height", .number(String(height))),
            JSONMember("coords", .string("pixels; x right, y down, z toward the camera is negative (same scale as x)")),
            JSONMember("model", .string(model)),
            JSONMember("points", .array(points.map {
                .array([FaceLandmarks.jsonNumber($0.x), FaceLandmarks.jsonNumber($0.y), FaceLandmarks.jsonNumber($0.z)])
            })),
            JSONMember("triangles", .array(triangles.map {
                .array([.number(String($0.x)), .number(String($0.y)), .number(String($0.z))])
            })),
        ])
        return JSONWriter.write(root)
    }
}
