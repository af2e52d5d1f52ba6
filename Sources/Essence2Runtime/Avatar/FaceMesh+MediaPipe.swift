extension FaceMesh {
    /// Points of a MediaPipe Face Mesh with iris refinement (468 face + 10 iris); every avatar mesh has this many.
    package static let mediaPipePointCount = 478

    /// MediaPipe indices of the named landmark points (`FaceLandmarks.requiredPointNames`).
    package static let mediaPipeNamedIndices: [String: Int] = [
        "right_eye_outer": 33, "right_eye_inner": 133, "left_eye_inner": 362, "left_eye_outer": 263,
        "right_iris_center": 468, "left_iris_center": 473, "mouth_corner_right": 61, "mouth_corner_left": 291,
        "upper_lip_outer_center": 0, "upper_lip_inner_center": 13, "lower_lip_inner_center": 14,
        "lower_lip_outer_center": 17, "chin": 152, "nose_tip": 1, "forehead_top": 10,
    ]

    /// MediaPipe indices of the 20-point outer lip outline, in `FaceLandmarks.lipsOuter` order
    /// (subject's right corner, lower lip first).
    package static let mediaPipeLipsOuter: [Int] = [
        61, 146, 91, 181, 84, 17, 314, 405, 321, 375, 291, 409, 270, 269, 267, 0, 37, 39, 40, 185,
    ]

    /// MediaPipe indices of the 20-point inner lip outline, in `FaceLandmarks.lipsInner` order.
    package static let mediaPipeLipsInner: [Int] = [
        78, 95, 88, 178, 87, 14, 317, 402, 318, 324, 308, 415, 310, 311, 312, 13, 82, 81, 80, 191,
    ]

    /// MediaPipe indices of the face silhouette, clockwise from the top of the forehead.
    package static let mediaPipeFaceOval: [Int] = [
        10, 338, 297, 332, 284, 251, 389, 356, 454, 323, 361, 288, 397, 365, 379, 378, 400, 377,
        152, 148, 176, 149, 150, 136, 172, 58, 132, 93, 234, 127, 162, 21, 54, 103, 67, 109,
    ]
}
