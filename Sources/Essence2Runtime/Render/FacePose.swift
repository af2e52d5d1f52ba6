/// The idle life of one frame: head motion, breathing and blinking, independent of speech.
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

    package init(headRoll: Float = 0, headShift: SIMD2<Float> = .zero, headYaw: Float = 0, headPitch: Float = 0,
                blink: Float = 0, breath: Float = 0) {
        self.headRoll = headRoll
        self.headShift = headShift
        self.headYaw = headYaw
        self.headPitch = headPitch
        self.blink = blink
        self.breath = breath
    }

    /// The still, neutral pose: the portrait as it was photographed.
    package static let neutral = FacePose()
}
