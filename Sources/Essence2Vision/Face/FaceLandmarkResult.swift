import Essence2Runtime

/// The Face Mesh landmarks of one face, in image pixels.
package struct FaceLandmarkResult: Sendable, Equatable {
    /// MediaPipe's 468 face points: x, y in pixels (not clipped to the image), z on x's scale, negative
    /// toward the camera, relative to the face's centre depth.
    package var points: [SIMD3<Float>]
    /// The landmark model's probability that the crop holds a face.
    package var presence: Float
    /// The detection the landmarks were measured from.
    package var face: FaceDetection
    /// Size of the image the points refer to.
    package var width: Int
    package var height: Int

    package init(points: [SIMD3<Float>], presence: Float, face: FaceDetection, width: Int, height: Int) {
        self.points = points
        self.presence = presence
        self.face = face
        self.width = width
        self.height = height
    }
}
