extension Avatar {
    /// The first way in which this avatar breaks the rules every `.imx` file must satisfy, or nil when it
    /// satisfies them: sizes within limits, buffers of the right length, every landmark and mesh point finite
    /// and inside the portrait, boxes non-empty and inside the portrait, triangles indexing existing points.
    package func validationProblem() -> String? {
        typealias F = AvatarFileFormat
        let nameLength = name.utf8.count
        guard nameLength >= 1, nameLength <= F.maxNameLength else { return "name must have 1...\(F.maxNameLength) bytes" }
        guard width >= 1, height >= 1, width <= F.maxSide, height <= F.maxSide, width * height <= F.maxPixels else {
            return "portrait size \(width)x\(height) outside the limits"
        }
        guard pixels.count == width * height * 3 else {
            return "portrait has \(pixels.count) bytes; \(width)x\(height) B,G,R needs \(width * height * 3)"
        }
        guard headMask.isEmpty || headMask.count == width * height else {
            return "head mask has \(headMask.count) bytes; expected \(width * height) or none"
        }
        if let character {
            guard width * height <= F.maxCharacterPixels else {
                return "a character's frame \(width)x\(height) has more than \(F.maxCharacterPixels) pixels (3072x3072); use a smaller --size"
            }
            guard headMask.count == width * height else { return "a character needs a head mask of \(width * height) bytes" }
            let box = headBox
            guard box.width >= 1, box.height >= 1, box.x >= 0, box.y >= 0, box.x <= width, box.y <= height,
                  box.width <= width - box.x, box.height <= height - box.y else {
                return "head box (\(box.x), \(box.y), \(box.width)x\(box.height)) is empty or outside the \(width)x\(height) frame"
            }
            return character.validationProblem(width: width, height: height)
        }
        let w = Float(width), h = Float(height)
        func inside(_ p: SIMD2<Float>) -> Bool {
            p.x.isFinite && p.y.isFinite && p.x >= 0 && p.y >= 0 && p.x <= w && p.y <= h
        }
        for required in FaceLandmarks.requiredPointNames where landmarks.points[required] == nil {
            return "landmark '\(required)' is missing"
        }
        guard landmarks.points.count <= F.maxNamedPoints else { return "more than \(F.maxNamedPoints) named landmarks" }
        for (key, point) in landmarks.points.sorted(by: { $0.key < $1.key }) {
            guard key.utf8.count <= 64, key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                return "invalid landmark name"
            }
            guard inside(point) else { return "landmark '\(key)' (\(point.x), \(point.y)) is outside the \(width)x\(height) portrait" }
        }
        for (label, outline) in [("outer", landmarks.lipsOuter), ("inner", landmarks.lipsInner)] {
            guard outline.count == FaceLandmarks.lipPointCount else {
                return "\(label) lip outline has \(outline.count) points; expected \(FaceLandmarks.lipPointCount)"
            }
            for (i, point) in outline.enumerated() where !inside(point) {
                return "\(label) lip point \(i) (\(point.x), \(point.y)) is outside the \(width)x\(height) portrait"
            }
        }
        for (label, box) in [("face box", landmarks.faceBox), ("mouth box", landmarks.mouthBox), ("head box", headBox)] {
            // Each bound is checked on its own, never by adding two values that came from the file (a crafted
            // box of 2^63 - 1 would overflow x + width).
            guard box.width >= 1, box.height >= 1, box.x >= 0, box.y >= 0, box.x <= width, box.y <= height,
                  box.width <= width - box.x, box.height <= height - box.y else {
                return "\(label) (\(box.x), \(box.y), \(box.width)x\(box.height)) is empty or outside the \(width)x\(height) portrait"
            }
        }
        guard mesh.points.count == FaceMesh.mediaPipePointCount else {
            return "mesh has \(mesh.points.count) points; expected \(FaceMesh.mediaPipePointCount)"
        }
        for (i, point) in mesh.points.enumerated() where !(inside(SIMD2(point.x, point.y)) && point.z.isFinite) {
            return "mesh point \(i) (\(point.x), \(point.y), \(point.z)) is outside the \(width)x\(height) portrait or not finite"
        }
        guard mesh.triangles.count >= 1, mesh.triangles.count <= F.maxTriangles else {
            return "mesh has \(mesh.triangles.count) triangles; expected 1...\(F.maxTriangles)"
        }
        let count = UInt16(mesh.points.count)
        for (i, t) in mesh.triangles.enumerated() {
            guard t.x < count, t.y < count, t.z < count else { return "mesh triangle \(i) indexes a point that does not exist" }
            guard t.x != t.y, t.y != t.z, t.x != t.z else { return "mesh triangle \(i) repeats a point" }
        }
        return nil
    }
}
