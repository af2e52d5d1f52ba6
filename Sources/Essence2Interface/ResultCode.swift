/// The stable return codes of include/essence2.h, by the names the header gives them (a test reads the header
/// and checks that both say the same). -2 has three names because its meaning depends on the function.
enum ResultCode {
    static let ok: Int32 = 0
    /// BE_ESSENCE2_ERR_ARGUMENT: NULL pointer, unknown or destroyed handle, short buffer, value out of range.
    static let argument: Int32 = -1
    /// BE_ESSENCE2_ERR_AVATAR: create could not open the avatar file or it is not a valid avatar.
    static let avatar: Int32 = -2
    /// BE_ESSENCE2_ERR_FULL: push_audio queued nothing (the ring has no room, or the engine was stopped).
    static let full: Int32 = -2
    /// BE_ESSENCE2_ERR_MODE: set_mode / set_pacing / set_lipsync got an unknown value.
    static let mode: Int32 = -2
    /// BE_ESSENCE2_ERR_REFUSED: the session was refused by the credential check.
    static let refused: Int32 = -3
    /// BE_ESSENCE2_ERR_RENDER: render_status: the engine's rendering failed (the reference interface's -1).
    static let render: Int32 = -1
    /// BE_ESSENCE2_ERR_STATUS_ARGUMENT: render_status's bad argument (its -1 means a failed render).
    static let statusArgument: Int32 = -4
}
