extension FaceLandmarks {
    /// The named points every avatar carries (keys of `points`).
    package static let requiredPointNames: [String] = [
        "right_eye_outer", "right_eye_inner", "left_eye_inner", "left_eye_outer",
        "right_iris_center", "left_iris_center", "mouth_corner_right", "mouth_corner_left",
        "upper_lip_outer_center", "upper_lip_inner_center", "lower_lip_inner_center", "lower_lip_outer_center",
        "chin", "nose_tip", "forehead_top",
    ]

    /// Points in each lip outline.
    package static let lipPointCount = 20
}
