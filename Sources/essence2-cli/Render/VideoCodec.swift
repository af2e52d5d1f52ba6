/// The video codec handed to ffmpeg.
enum VideoCodec: String {
    /// H.264 through libx264 (preferred for MP4, MOV and MKV).
    case h264 = "libx264"
    /// MPEG-4 part 2, ffmpeg's built-in encoder, when libx264 is not available.
    case mpeg4 = "mpeg4"
    /// VP9 through libvpx, for WebM.
    case vp9 = "libvpx-vp9"

    /// The encoders an ffmpeg has, from `ffmpeg -encoders` (empty when that fails).
    static func encoders(ffmpeg: String) -> Set<String> {
        guard let result = try? ChildProcess.capture([ffmpeg, "-hide_banner", "-encoders"], stderr: nil),
              result.status == 0 else { return [] }
        let listing = String(decoding: result.output, as: UTF8.self)
        var names: Set<String> = []
        for line in listing.split(separator: "\n") {
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            if words.count >= 2, words[0].count == 6 { names.insert(String(words[1])) }
        }
        return names
    }

    /// The codec for `container` among `encoders`, or nil when this ffmpeg cannot encode video for it.
    static func best(for container: OutputContainer, encoders: Set<String>) -> VideoCodec? {
        if container.isWebM { return encoders.contains(VideoCodec.vp9.rawValue) ? .vp9 : nil }
        if encoders.contains(VideoCodec.h264.rawValue) { return .h264 }
        return encoders.contains(VideoCodec.mpeg4.rawValue) || encoders.isEmpty ? .mpeg4 : nil
    }
}
