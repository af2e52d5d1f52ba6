#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Essence2Runtime

/// The rotated square of the image that the landmark model sees, in pixels.
struct FaceRegion: Sendable, Equatable {
    package var center: SIMD2<Float>
    /// Side of the square.
    var side: Float
    /// Clockwise on screen (y down), radians in [-π, π): the square's x axis is (cos, sin).
    var rotation: Float

    /// MediaPipe Face Mesh's region for a detection (DetectionsToRects + RectTransformation in
    /// face_detection_front_detection_to_roi): centred on the box, rotated so that the line from keypoint 0
    /// (the eye on the image's left) to keypoint 1 becomes horizontal, the box's longer side times 1.5.
    init(detection: FaceDetection) {
        center = detection.center
        side = 1.5 * max(detection.width, detection.height)
        var angle: Float = 0
        if detection.keypoints.count >= 2 {
            let d = detection.keypoints[1] - detection.keypoints[0]
            angle = -atan2(-d.y, d.x)
        }
        // Normalise to [-π, π) as MediaPipe's NormalizeRadians does.
        angle = angle - 2 * Float.pi * ((angle + Float.pi) / (2 * Float.pi)).rounded(.down)
        rotation = angle.isFinite ? angle : 0
    }

    init(center: SIMD2<Float>, side: Float, rotation: Float) {
        self.center = center
        self.side = side
        self.rotation = rotation
    }

    /// Unit vectors of the square's x and y axes in the image.
    var axes: (x: SIMD2<Double>, y: SIMD2<Double>) {
        let c = Double(cos(rotation)), s = Double(sin(rotation))
        return (SIMD2(c, s), SIMD2(-s, c))
    }

    /// An image point for a point of the square in units of its side, (0, 0) the top-left corner and (1, 1)
    /// the bottom-right one; z (same units) scales with the side.
    func imagePoint(_ p: SIMD3<Float>) -> SIMD3<Float> {
        let c = cos(rotation), s = sin(rotation)
        let u = p.x - 0.5, v = p.y - 0.5
        return SIMD3(center.x + side * (c * u - s * v), center.y + side * (s * u + c * v), p.z * side)
    }
}
