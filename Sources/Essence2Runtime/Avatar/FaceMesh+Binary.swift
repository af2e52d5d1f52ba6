extension FaceMesh {
    /// Decodes a `mesh` section; the counts must account for its length exactly.
    static func decodeSection(_ bytes: [UInt8]) -> Result<FaceMesh, AvatarFileError> {
        var reader = ByteReader(bytes)
        guard let pointCount = reader.u32(), let triangleCount = reader.u32(),
              pointCount <= 65536, triangleCount <= UInt32(AvatarFileFormat.maxTriangles),
              8 + 12 * Int(pointCount) + 6 * Int(triangleCount) == bytes.count else {
            return .failure(AvatarFileError(.corrupt, "section 'mesh': its counts do not match its length of \(bytes.count) bytes"))
        }
        var points: [SIMD3<Float>] = []
        points.reserveCapacity(Int(pointCount))
        for _ in 0..<Int(pointCount) {
            guard let x = reader.f32(), let y = reader.f32(), let z = reader.f32() else { break }
            points.append(SIMD3(x, y, z))
        }
        var triangles: [SIMD3<UInt16>] = []
        triangles.reserveCapacity(Int(triangleCount))
        for _ in 0..<Int(triangleCount) {
            guard let a = reader.u16(), let b = reader.u16(), let c = reader.u16() else { break }
            triangles.append(SIMD3(a, b, c))
        }
        return .success(FaceMesh(points: points, triangles: triangles))
    }
}
