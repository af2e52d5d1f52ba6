import Essence2Runtime

/// One face found by `FaceDetector`, in image pixels (x right, y down; continuous coordinates in which pixel
/// (i, j) has its centre at (i, j), as in MediaPipe's OpenCV path).
package struct FaceDetection: Sendable, Equatable {
    /// Left edge of the face box.
    package var x: Float
    /// Top edge of the face box.
    package var y: Float
    package var width: Float
    package var height: Float
    /// BlazeFace's six keypoints: the eye on the image's left (the subject's right eye), the other eye, nose
    /// tip, mouth centre, the ear region on the image's left, the ear region on the image's right.
    package var keypoints: [SIMD2<Float>]
    /// Detector confidence, 0 ... 1.
    package var score: Float

    package init(x: Float, y: Float, width: Float, height: Float, keypoints: [SIMD2<Float>], score: Float) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.keypoints = keypoints
        self.score = score
    }

    /// Centre of the face box.
    package var center: SIMD2<Float> { SIMD2(x + width / 2, y + height / 2) }
}

extension FaceDetection: CustomStringConvertible {
    /// For example "box 171x147 194x195, score 0.94".
    package var description: String {
        func int(_ value: Float) -> Int { value.isFinite ? Int(value.rounded()) : 0 }
        let percent = score.isFinite ? Int((score * 100).rounded()) : 0
        return "box at (\(int(x)), \(int(y))) size \(int(width))x\(int(height)), score \(Float(percent) / 100)"
    }
}
