/// Which files a render writes, decided before rendering starts.
struct OutputPlan: Equatable {
    enum Kind: Equatable {
        /// An encoded file through ffmpeg with this codec.
        case encoded(ffmpeg: String, codec: VideoCodec)
        /// A .y4m video and a .wav beside it.
        case y4m(audioPath: String)
    }

    var videoPath: String
    var kind: Kind
    /// Said to the user before rendering (for example why there is no MP4), or nil.
    var note: String?

    /// - Parameters:
    ///   - requested: `-o` as given, or nil for the speech file's name with `.mp4` in the current directory.
    ///   - ffmpeg: the ffmpeg found in PATH, nil when there is none.
    ///   - codec: chooses the codec for a found ffmpeg (asked only when needed).
    static func decide(requested: String?, speechPath: String, ffmpeg: String?, codec: (String) -> VideoCodec) -> OutputPlan {
        let output = requested ?? PathName.replacingExtension(PathName.base(speechPath), with: "mp4")
        if PathName.fileExtension(output) == "y4m" {
            return OutputPlan(videoPath: output, kind: .y4m(audioPath: PathName.replacingExtension(output, with: "wav")))
        }
        guard let ffmpeg else {
            let video = PathName.replacingExtension(output, with: "y4m")
            let audio = PathName.replacingExtension(output, with: "wav")
            return OutputPlan(videoPath: video, kind: .y4m(audioPath: audio),
                              note: "ffmpeg is not installed (not found in PATH): writing \(video) (video) and \(audio) (audio) instead of \(output)")
        }
        let chosen = codec(ffmpeg)
        let note = chosen == .h264 ? nil : "ffmpeg has no libx264 encoder: using MPEG-4 part 2 video"
        return OutputPlan(videoPath: output, kind: .encoded(ffmpeg: ffmpeg, codec: chosen), note: note)
    }
}
