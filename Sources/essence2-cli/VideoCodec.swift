/// The video codec handed to ffmpeg.
enum VideoCodec: String {
    /// H.264 through libx264 (preferred).
    case h264 = "libx264"
    /// MPEG-4 part 2, ffmpeg's built-in encoder, when libx264 is not available.
    case mpeg4 = "mpeg4"

    /// Reads `ffmpeg -encoders` and picks libx264 when it is listed.
    static func best(ffmpeg: String) -> VideoCodec {
        guard let result = try? ChildProcess.capture([ffmpeg, "-hide_banner", "-encoders"], stderr: nil),
              result.status == 0 else { return .mpeg4 }
        let listing = String(decoding: result.output, as: UTF8.self)
        return listing.split(separator: "\n").contains { line in
            line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first == "libx264"
        } ? .h264 : .mpeg4
    }
}
