import Essence2Runtime

extension FaceMesh {
    /// The `mesh` section: u32 point count, u32 triangle count, f32 x,y,z per point, u16 a,b,c per triangle.
    func encodedSection() -> [UInt8] {
        var writer = ByteWriter()
        writer.u32(UInt32(points.count))
        writer.u32(UInt32(triangles.count))
        for point in points {
            writer.f32(point.x)
            writer.f32(point.y)
            writer.f32(point.z)
        }
        for triangle in triangles {
            writer.u16(triangle.x)
            writer.u16(triangle.y)
            writer.u16(triangle.z)
        }
        return writer.bytes
    }
}
