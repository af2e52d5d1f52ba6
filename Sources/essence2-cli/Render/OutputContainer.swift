/// The encoded containers `render` writes through ffmpeg, chosen by the output's extension.
enum OutputContainer: String, CaseIterable {
    case mp4, mov, mkv, webm

    /// The container for a file extension (lower case), or nil when `render` does not write it.
    static func forExtension(_ fileExtension: String) -> OutputContainer? {
        switch fileExtension.lowercased() {
        case "mp4", "m4v": return .mp4
        case "mov": return .mov
        case "mkv": return .mkv
        case "webm": return .webm
        default: return nil
        }
    }

    /// The extensions `render` accepts, for messages.
    static let accepted = ".mp4 (or .m4v), .mov, .mkv, .webm, or .y4m (raw video with a .wav beside it)"

    /// ffmpeg's name of the muxer (the output is a descriptor, so the extension cannot tell ffmpeg).
    var muxer: String {
        switch self {
        case .mp4: return "mp4"
        case .mov: return "mov"
        case .mkv: return "matroska"
        case .webm: return "webm"
        }
    }

    /// WebM holds only VP8/VP9/AV1 video and Vorbis/Opus audio; the others take H.264 and AAC.
    var isWebM: Bool { self == .webm }

    /// Whether the muxer wants its index moved to the front (quick start when streamed).
    var fastStart: Bool { self == .mp4 || self == .mov }
}
