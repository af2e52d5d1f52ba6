/// What an avatar is, and so which engine renders it: a photoreal portrait (Essence 2), whose face is the avatar's
/// `landmarks` and `mesh`, or a character (Expression 2) with its rig.
package enum AvatarKind: Sendable, Equatable {
    case photoreal
    case character(CharacterRig)

    /// The manifest's and `avatar inspect`'s name of the kind: "photoreal" or "character".
    package var name: String {
        switch self {
        case .photoreal: AvatarManifest.photorealKind
        case .character: AvatarManifest.characterKind
        }
    }

    /// Frames a second and samples a frame: Essence 2's for a portrait, Expression 2's for a character.
    package var cadence: FrameCadence {
        switch self {
        case .photoreal: .essence2
        case .character: .expression2
        }
    }
}
