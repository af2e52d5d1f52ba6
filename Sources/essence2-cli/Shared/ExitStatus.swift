/// The exit statuses of the `essence2` command (listed in `essence2 --help`).
enum ExitStatus {
    /// Everything worked.
    static let success: Int32 = 0
    /// Something failed while working: encoding, writing the output, the engine.
    static let failure: Int32 = 1
    /// The command line is wrong: unknown command or option, missing or bad value.
    static let usage: Int32 = 2
    /// The speech (audio) input is missing, unreadable or empty.
    static let badAudio: Int32 = 3
    /// The avatar file is missing or not a valid avatar.
    static let badAvatar: Int32 = 4
    /// `play`: no display, no sound device or no SDL2 to reach them.
    static let noDevice: Int32 = 5
    /// `avatar get`: the service refused the API secret for that avatar (401, 403), or there is no secret.
    static let refused: Int32 = 6
    /// `avatar build --character`: the points were found, but not surely; the avatar was written with the best
    /// guess, to be checked in the rig editor (`essence2 avatar rig`).
    static let unsure: Int32 = 7
}
