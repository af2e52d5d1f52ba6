/// Named face points and lip outlines of a portrait, in pixels (x right, y down; right/left are the subject's own).
package struct FaceLandmarks: Sendable, Equatable {
    /// Named points, keyed as in the landmark JSON: `right_eye_outer`, `right_eye_inner`, `left_eye_inner`,
    /// `left_eye_outer`, `right_iris_center`, `left_iris_center`, `mouth_corner_right`, `mouth_corner_left`,
    /// `upper_lip_outer_center`, `upper_lip_inner_center`, `lower_lip_inner_center`, `lower_lip_outer_center`,
    /// `chin`, `nose_tip`, `forehead_top`.
    package var points: [String: SIMD2<Float>]
    /// Outer lip outline, 20 points, starting at the subject's right mouth corner, along the lower lip first.
    package var lipsOuter: [SIMD2<Float>]
    /// Inner lip outline (the opening), 20 points, same order as `lipsOuter`.
    package var lipsInner: [SIMD2<Float>]
    /// Face bounding box.
    package var faceBox: PixelRect
    /// Mouth box: the region in which the mouth moves.
    package var mouthBox: PixelRect

    package init(points: [String: SIMD2<Float>], lipsOuter: [SIMD2<Float>], lipsInner: [SIMD2<Float>],
                faceBox: PixelRect, mouthBox: PixelRect) {
        self.points = points
        self.lipsOuter = lipsOuter
        self.lipsInner = lipsInner
        self.faceBox = faceBox
        self.mouthBox = mouthBox
    }
}
