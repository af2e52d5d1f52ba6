import Essence2Authoring

/// The character point finder's proposal for a picture, and whether it is sure of it.
struct CharacterPointProposal {
    var points: CharacterSourcePoints
    /// Why the finder is not sure; nil when it is.
    var doubt: String?
    var confidence: Float
    var confidenceText: String { String(Double((confidence * 100).rounded()) / 100) }

    static func propose(bgr: [UInt8], alpha: [UInt8]?, width: Int, height: Int) throws -> CharacterPointProposal {
        throw CLIError("no points given: pass --points FILE.json (left_eye, right_eye, mouth_left, mouth_right, "
            + "mouth_center, mouth) or place them in the rig editor: essence2 avatar rig PICTURE", status: ExitStatus.usage)
    }
}
