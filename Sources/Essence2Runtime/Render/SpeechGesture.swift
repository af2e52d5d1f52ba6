/// The motion that follows the voice in one frame, added to the idle pose (`FacePose.adding(_:)`).
package struct SpeechGesture: Sendable, Equatable, Hashable {
    /// Added to the head's nod (positive: the face dips) and turn, in `FacePose` units.
    package var headPitch: Float
    package var headYaw: Float
    /// Added to the head's roll, radians.
    package var headRoll: Float
    /// Brows raised, 0 ... 1.
    package var browRaise: Float
    /// Added to the gaze, in `FacePose` units.
    package var gaze: SIMD2<Float>
    /// Eyelid closure of a blink at a phrase boundary, 0 ... 1.
    package var blink: Float

    package init(headPitch: Float = 0, headYaw: Float = 0, headRoll: Float = 0, browRaise: Float = 0,
                 gaze: SIMD2<Float> = .zero, blink: Float = 0) {
        self.headPitch = headPitch
        self.headYaw = headYaw
        self.headRoll = headRoll
        self.browRaise = browRaise
        self.gaze = gaze
        self.blink = blink
    }

    /// No motion beyond the idle pose.
    package static let none = SpeechGesture()
}

extension FacePose {
    /// This pose with `gesture` added: nod, turn and roll add up, brows and eyelids take the larger of the two,
    /// gaze adds up.
    package func adding(_ gesture: SpeechGesture) -> FacePose {
        var pose = self
        pose.headPitch += gesture.headPitch
        pose.headYaw += gesture.headYaw
        pose.headRoll += gesture.headRoll
        pose.browRaise = max(pose.browRaise, gesture.browRaise)
        pose.gaze += gesture.gaze
        pose.blink = max(pose.blink, gesture.blink)
        return pose
    }
}
