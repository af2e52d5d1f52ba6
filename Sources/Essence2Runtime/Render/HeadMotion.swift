/// The head's motion in one frame, from a `FacePose` (values limited to small, safe ranges): a rigid transform
/// of the head (roll about the neck, shift, breathing lift, a little of the yaw and pitch) and the parallax of
/// the face's front (nose) relative to its outline.
struct HeadMotion {
    /// Limits applied to a pose: roll (radians), shift (fraction of the face height).
    static let maxRoll: Float = 0.06
    static let maxShiftPerFaceHeight: Float = 0.05
    /// Breathing lift at |breath| = 1, fraction of the face height.
    static let breathLift: Float = 0.006
    /// How far the head moves down the face at pitch = 1 (a nod), fraction of the face height: a nod turns
    /// the head about the neck, so the whole face dips, not only its front.
    static let nodDrop: Float = 0.02

    /// Portrait to frame, for points that move with the head.
    var transform: Affine2
    /// Screen shift of the nose tip relative to the face outline, pixels.
    var parallax: SIMD2<Float>
    /// No head motion at all: the frame shows the portrait's head where it is.
    var isStill: Bool

    init(pose: FacePose, metrics m: FaceMetrics, parallaxAmplitude: Float) {
        let roll = sanitized(pose.headRoll, -HeadMotion.maxRoll, HeadMotion.maxRoll)
        let faceHeight = HeadMotion.motionScale(m)
        let maxShift = max(2, HeadMotion.maxShiftPerFaceHeight * faceHeight)
        let shift = SIMD2(sanitized(pose.headShift.x, -maxShift, maxShift), sanitized(pose.headShift.y, -maxShift, maxShift))
        let yaw = sanitized(pose.headYaw, -1, 1), pitch = sanitized(pose.headPitch, -1, 1)
        let breath = sanitized(pose.breath, -1, 1)
        parallax = SIMD2(yaw, pitch) * parallaxAmplitude
        let lift = -m.frame.ey * (breath * HeadMotion.breathLift * faceHeight)
        let nod = m.frame.ey * (pitch * HeadMotion.nodDrop * faceHeight)
        let t = shift + lift + nod + parallax * 0.4
        transform = roll == 0 ? Affine2(a: 1, b: 0, c: t.x, d: 0, e: 1, f: t.y)
            : Affine2.rotation(roll, about: m.pivot, translation: t)
        isStill = transform.isIdentity && parallax == .zero
    }

    /// Largest distance, in pixels, any point within `radius` of the neck pivot can move under the limits.
    static func maxDisplacement(metrics m: FaceMetrics, parallaxAmplitude: Float, radius: Float) -> Float {
        let h = motionScale(m)
        return maxRoll * radius + maxShiftPerFaceHeight * h * 1.5 + breathLift * h + nodDrop * h
            + parallaxAmplitude * 1.9 + 2
    }

    /// The face height that scales head motion, capped so absurd geometry cannot make absurd motion.
    static func motionScale(_ m: FaceMetrics) -> Float { min(m.height, 4096) }
}
