/// The idle life of one frame: head motion, breathing and blinking, independent of speech.
public struct FacePose: Sendable, Equatable, Hashable {
    /// Head rotation in the image plane, radians (positive turns clockwise on screen). Small: |roll| < 0.05.
    public var headRoll: Float
    /// Head translation in pixels of the avatar image (x right, y down). Small: a few pixels.
    public var headShift: SIMD2<Float>
    /// Head turn left/right, -1 ... 1, rendered as a slight horizontal parallax of the face (nose moves more than the cheeks).
    public var headYaw: Float
    /// Head nod, -1 ... 1, rendered as a slight vertical parallax of the face.
    public var headPitch: Float
    /// Eyelid closure, 0 (open) ... 1 (fully closed).
    public var blink: Float
    /// Breathing phase value, -1 ... 1 (inhale raises the head and shoulders slightly).
    public var breath: Float

    public init(headRoll: Float = 0, headShift: SIMD2<Float> = .zero, headYaw: Float = 0, headPitch: Float = 0,
                blink: Float = 0, breath: Float = 0) {
        self.headRoll = headRoll
        self.headShift = headShift
        self.headYaw = headYaw
        self.headPitch = headPitch
        self.blink = blink
        self.breath = breath
    }

    /// The still, neutral pose: the portrait as it was photographed.
    public static let neutral = FacePose()
}
