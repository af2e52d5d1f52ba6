/// The life of one frame beyond the mouth: head motion, breathing, blinking, brows and gaze (the idle motion,
/// plus the motion that follows the voice while the avatar speaks).
package struct FacePose: Sendable, Equatable, Hashable {
    /// Head rotation in the image plane, radians (positive turns clockwise on screen). Small: |roll| < 0.05.
    package var headRoll: Float
    /// Head translation in pixels of the avatar image (x right, y down). Small: a few pixels.
    package var headShift: SIMD2<Float>
    /// Head turn left/right, -1 ... 1, rendered as a slight horizontal parallax of the face (nose moves more than the cheeks).
    package var headYaw: Float
    /// Head nod, -1 ... 1, rendered as a slight vertical parallax of the face.
    package var headPitch: Float
    /// Eyelid closure, 0 (open) ... 1 (fully closed).
    package var blink: Float
    /// Breathing phase value, -1 ... 1 (inhale raises the head and shoulders slightly).
    package var breath: Float
    /// Brows raised, 0 (as photographed) ... 1 (raised as far as the rig goes).
    package var browRaise: Float
    /// Where the eyes look, relative to the portrait's gaze: -1 ... 1 on each axis (x right, y down on screen),
    /// 1 moving the irises by about half their radius.
    package var gaze: SIMD2<Float>

    package init(headRoll: Float = 0, headShift: SIMD2<Float> = .zero, headYaw: Float = 0, headPitch: Float = 0,
                blink: Float = 0, breath: Float = 0, browRaise: Float = 0, gaze: SIMD2<Float> = .zero) {
        self.headRoll = headRoll
        self.headShift = headShift
        self.headYaw = headYaw
        self.headPitch = headPitch
        self.blink = blink
        self.breath = breath
        self.browRaise = browRaise
        self.gaze = gaze
    }

    /// The still, neutral pose: the portrait as it was photographed.
    package static let neutral = FacePose()
}
