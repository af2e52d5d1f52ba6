/// The MediaPipe Face Mesh of a portrait: 478 points (468 face + 10 iris) and its triangles.
package struct FaceMesh: Sendable, Equatable {
    /// Points in pixels (x right, y down); z toward the camera is negative, same scale as x.
    package var points: [SIMD3<Float>]
    /// Triangles as indices into `points`, every index < `points.count`.
    package var triangles: [SIMD3<UInt16>]

    package init(points: [SIMD3<Float>], triangles: [SIMD3<UInt16>]) {
        self.points = points
        self.triangles = triangles
    }
}
