/// Which files a render writes, decided before rendering starts.
struct OutputPlan: Equatable {
    enum Kind: Equatable {
        /// An encoded file through ffmpeg: this container and video codec.
        case encoded(ffmpeg: String, container: OutputContainer, codec: VideoCodec)
        /// A .y4m video and a .wav beside it.
        case y4m(audioPath: String)
    }

    var videoPath: String
    var kind: Kind
    /// Said to the user before rendering (for example that a fallback codec is used), or nil.
    var note: String?

    /// - Parameters:
    ///   - requested: `-o` as given, or nil for the speech file's name with `.mp4` in the current directory.
    ///   - ffmpeg: the ffmpeg found in PATH, nil when there is none.
    ///   - encoders: lists the encoders of a found ffmpeg (asked only when needed).
    /// - Throws: a usage error for an extension `render` does not write, and an error (status 1) when the
    ///   container needs an ffmpeg, or an encoder, that is not there.
    static func decide(requested: String?, speechPath: String, ffmpeg: String?,
                       encoders: (String) -> Set<String>) throws(CLIError) -> OutputPlan {
        let output = requested ?? PathName.replacingExtension(PathName.base(speechPath), with: "mp4")
        let fileExtension = PathName.fileExtension(output).lowercased()
        if fileExtension.isEmpty {
            throw .usage("the output '\(output)' has no extension to choose the format by: use \(OutputContainer.accepted)")
        }
        if fileExtension == "y4m" {
            return OutputPlan(videoPath: output, kind: .y4m(audioPath: PathName.replacingExtension(output, with: "wav")))
        }
        guard let container = OutputContainer.forExtension(fileExtension) else {
            throw .usage("render cannot write '.\(fileExtension)' files ('\(output)'): use \(OutputContainer.accepted)")
        }
        guard let ffmpeg else {
            let y4m = PathName.replacingExtension(output, with: "y4m")
            throw CLIError("cannot write '\(output)': ffmpeg, which encodes it, is not installed (not found in PATH). "
                           + "Install it (Debian/Ubuntu: sudo apt install ffmpeg), or write '-o \(y4m)' for raw video "
                           + "with a .wav beside it")
        }
        let available = encoders(ffmpeg)
        guard let codec = VideoCodec.best(for: container, encoders: available) else {
            let wanted = container.isWebM ? "libvpx-vp9 (VP9)" : "libx264 (H.264) or mpeg4"
            throw CLIError("cannot write '\(output)': this ffmpeg (\(ffmpeg)) has no \(wanted) encoder; "
                           + "install a full ffmpeg, or use -o with .mp4 or .y4m")
        }
        let note = codec == .mpeg4 ? "ffmpeg has no libx264 encoder: using MPEG-4 part 2 video" : nil
        return OutputPlan(videoPath: output, kind: .encoded(ffmpeg: ffmpeg, container: container, codec: codec), note: note)
    }
}
