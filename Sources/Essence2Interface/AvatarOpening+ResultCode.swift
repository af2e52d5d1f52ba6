import Essence2Service

extension AvatarOpening.Failure {
    /// The create functions' return code for this failure: `BE_ESSENCE2_ERR_AVATAR` for an unreadable avatar or one
    /// of the other engine's kind, `BE_ESSENCE2_ERR_REFUSED` for a refused session.
    var resultCode: Int32 {
        switch self {
        case .unreadable, .wrongKind: ResultCode.avatar
        case .refused: ResultCode.refused
        }
    }
}
