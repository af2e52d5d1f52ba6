import Essence2Runtime
import Essence2Vision

/// Builds an `Avatar` from a portrait and its landmark (and optionally mesh) JSON: parses and checks the
/// input, synthesises a coarse mesh when none is given, and precomputes the head box and head mask.
package enum AvatarBuilder {
    /// Idle-motion seed used when the caller gives none.
    package static let defaultSeed: UInt64 = 0x5EED

    /// - Parameters:
    ///   - name: display name stored in the manifest.
    ///   - pixels: the portrait, packed B,G,R, `width * height * 3` bytes.
    ///   - landmarksJSON: JSON of the shape of `../shared/portraits/*.landmarks.json`.
    ///   - meshJSON: JSON of the shape of `../shared/portraits/*.mesh.json`; nil synthesises a coarse mesh
    ///     from the landmarks (`FaceMesh.synthesized`).
    /// - Throws: `.invalidInput` (malformed JSON, missing points, points outside the portrait, bad triangle
    ///   indices, wrong buffer size) or `.tooLarge` (portrait beyond the format's limits).
    package static func build(name: String, bgr pixels: [UInt8], width: Int, height: Int, landmarksJSON: [UInt8],
                             meshJSON: [UInt8]?, seed: UInt64 = defaultSeed) throws(AvatarFileError) -> Avatar {
        try checkPortrait(pixels, width: width, height: height)
        let landmarks = try FaceLandmarks.parseJSON(landmarksJSON, width: width, height: height)
        try checkLandmarks(landmarks, name: name, pixels: pixels, width: width, height: height)
        let mesh: FaceMesh
        if let meshJSON {
            mesh = try FaceMesh.parseJSON(meshJSON, width: width, height: height)
        } else {
            guard let synthesized = FaceMesh.synthesized(from: landmarks, width: width, height: height) else {
                throw AvatarFileError(.invalidInput, "landmarks are degenerate: cannot fit a face mesh to them")
            }
            mesh = synthesized
        }
        return try assemble(name: name, bgr: pixels, width: width, height: height, landmarks: landmarks, mesh: mesh,
                            seed: seed)
    }

    /// Builds an avatar from landmarks and a mesh found in the portrait (`FaceAnalyzer`), or made any other way.
    /// - Throws: as `build(name:bgr:width:height:landmarksJSON:meshJSON:seed:)`, for points outside the portrait,
    ///   a degenerate face or a mesh with bad triangles.
    package static func build(name: String, bgr pixels: [UInt8], width: Int, height: Int, landmarks: FaceLandmarks,
                             mesh: FaceMesh, seed: UInt64 = defaultSeed) throws(AvatarFileError) -> Avatar {
        try checkPortrait(pixels, width: width, height: height)
        try checkLandmarks(landmarks, name: name, pixels: pixels, width: width, height: height)
        return try assemble(name: name, bgr: pixels, width: width, height: height, landmarks: landmarks, mesh: mesh,
                            seed: seed)
    }

    private static func checkPortrait(_ pixels: [UInt8], width: Int, height: Int) throws(AvatarFileError) {
        typealias F = AvatarFileFormat
        guard width >= 1, height >= 1 else { throw AvatarFileError(.invalidInput, "empty portrait (\(width)x\(height))") }
        guard width <= F.maxSide, height <= F.maxSide, width * height <= F.maxPixels else {
            throw AvatarFileError(.tooLarge, "portrait \(width)x\(height) exceeds the limit (sides up to \(F.maxSide), at most \(F.maxPixels) pixels)")
        }
        guard pixels.count == width * height * 3 else {
            throw AvatarFileError(.invalidInput, "portrait has \(pixels.count) bytes; \(width)x\(height) B,G,R needs \(width * height * 3)")
        }
    }

    /// Checks the landmarks before fitting anything to them.
    private static func checkLandmarks(_ landmarks: FaceLandmarks, name: String, pixels: [UInt8], width: Int,
                                       height: Int) throws(AvatarFileError) {
        if let problem = Avatar(name: name, width: width, height: height, pixels: pixels, landmarks: landmarks,
                                mesh: FaceMesh(points: [], triangles: []), headBox: landmarks.faceBox)
            .validationProblem(), !problem.hasPrefix("mesh") {
            throw AvatarFileError(.invalidInput, problem)
        }
    }

    private static func assemble(name: String, bgr pixels: [UInt8], width: Int, height: Int, landmarks: FaceLandmarks,
                                 mesh: FaceMesh, seed: UInt64) throws(AvatarFileError) -> Avatar {
        guard let geometry = FaceGeometry(landmarks) else {
            throw AvatarFileError(.invalidInput, "landmarks: chin and forehead top are (nearly) the same point")
        }
        let avatar = Avatar(name: name, width: width, height: height, pixels: pixels, landmarks: landmarks, mesh: mesh,
                            headBox: headBox(geometry, width: width, height: height),
                            headMask: headMask(geometry, mesh: mesh, width: width, height: height), seed: seed)
        if let problem = avatar.validationProblem() { throw AvatarFileError(.invalidInput, problem) }
        return avatar
    }
}
