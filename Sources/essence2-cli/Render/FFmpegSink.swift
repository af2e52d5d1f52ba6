import Glibc

/// Pipes raw B,G,R frames into ffmpeg, which encodes them and muxes the speech as it is in the speech file
/// (its own rate and channels, encoded at a good bit rate). The output is written to an anonymous file in the
/// destination's directory and appears under its name only when ffmpeg has finished (`AtomicOutput`).
final class FFmpegSink: FrameSink {
    private let output: AtomicOutput
    private let log: ScratchFile
    private var pipe: OutputFile?
    private var pid: pid_t
    private var finished = false

    var outputs: [String] { [output.path] }

    /// `F_SETPIPE_SZ`, which Glibc's module does not export.
    private static let setPipeSize: Int32 = 1031

    /// The descriptor number the child writes the output to (`/dev/fd/3`).
    static let outputDescriptor: Int32 = 3

    /// What to encode.
    struct Settings: Equatable {
        var width: Int
        var height: Int
        var container: OutputContainer
        var codec: VideoCodec
        /// x264's speed/size trade-off (ultrafast ... veryslow).
        var preset: String
        /// Channels of the speech file (for the audio bit rate).
        var audioChannels: Int
        /// Frames a second: 25 (Essence 2) or 20 (Expression 2).
        var framesPerSecond: Int = 25
    }

    /// The arguments after the program name: video from standard input, audio from `speechPath` (padded with
    /// silence to the video's length: `apad` + `-shortest`), the result to `/dev/fd/3`.
    static func arguments(_ settings: Settings, speechPath: String) -> [String] {
        let (width, height) = (settings.width, settings.height)
        var arguments = ["-hide_banner", "-loglevel", "error", "-y",
                         "-f", "rawvideo", "-pix_fmt", "bgr24", "-s", "\(width)x\(height)", "-r", "\(settings.framesPerSecond)", "-i", "-",
                         "-i", speechPath, "-map", "0:v:0", "-map", "1:a:0"]
        if width % 2 != 0 || height % 2 != 0 {
            // 4:2:0 needs even sizes: drop the odd last column or row.
            arguments += ["-vf", "crop=\(width / 2 * 2):\(height / 2 * 2):0:0"]
        }
        switch settings.codec {
        case .h264: arguments += ["-c:v", "libx264", "-preset", settings.preset, "-crf", "18", "-pix_fmt", "yuv420p"]
        case .mpeg4: arguments += ["-c:v", "mpeg4", "-q:v", "2", "-pix_fmt", "yuv420p"]
        case .vp9:
            arguments += ["-c:v", "libvpx-vp9", "-crf", "30", "-b:v", "0", "-deadline", "realtime", "-cpu-used", "8",
                          "-row-mt", "1", "-pix_fmt", "yuv420p"]
        }
        let channels = max(1, settings.audioChannels)
        if settings.container.isWebM {
            arguments += ["-c:a", "libopus", "-b:a", "\(min(96 * channels, 256))k"]
        } else {
            arguments += ["-c:a", "aac", "-b:a", "\(min(channels == 1 ? 128 : 96 * channels, 320))k"]
        }
        arguments += ["-af", "apad", "-shortest"]
        if settings.container.fastStart { arguments += ["-movflags", "+faststart"] }
        arguments += ["-f", settings.container.muxer, "/dev/fd/\(outputDescriptor)"]
        return arguments
    }

    init(ffmpeg: String, settings: Settings, speechPath: String, outputPath: String) throws(CLIError) {
        output = try AtomicOutput(path: outputPath)
        log = try ScratchFile()
        let (readEnd, writeEnd) = try ChildProcess.pipe()
        // A pipe holds 64 KiB by default: a frame would cross it in dozens of context switches. Ask for 1 MiB
        // (Linux's default ceiling; a refusal only costs speed).
        _ = fcntl(writeEnd, Self.setPipeSize, Int32(1 << 20))
        let devNull = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer {
            close(readEnd)
            if devNull >= 0 { close(devNull) }
        }
        do throws(CLIError) {
            pid = try ChildProcess.spawn(
                [ffmpeg] + Self.arguments(settings, speechPath: speechPath),
                stdin: readEnd, stdout: devNull >= 0 ? devNull : nil, stderr: log.descriptor,
                more: [(output.file.descriptor, Self.outputDescriptor)])
        } catch {
            close(writeEnd)
            output.discard()
            throw error
        }
        pipe = OutputFile(descriptor: writeEnd, name: "the pipe to ffmpeg")
    }

    func append(bgr: UnsafeRawBufferPointer) throws(CLIError) {
        guard let pipe else { throw CLIError("ffmpeg was already finished") }
        do throws(CLIError) {
            try pipe.write(bgr)
        } catch {
            // ffmpeg has gone away (EPIPE); its own message says why.
            let status = stopAndWait()
            throw CLIError("ffmpeg stopped (exit status \(status)) while encoding '\(output.path)'\(logTail())")
        }
    }

    func finish(frameCount: Int) throws(CLIError) {
        let status = stopAndWait()
        guard status == 0 else {
            output.discard()
            throw CLIError("ffmpeg could not encode '\(output.path)' (exit status \(status))\(logTail())")
        }
        try output.commit()
    }

    func abandon() {
        if !finished {
            kill(pid, SIGTERM)
            _ = stopAndWait()
        }
        output.discard()
    }

    /// Closes the pipe (end of video) and waits for ffmpeg to exit; returns its status.
    private func stopAndWait() -> Int32 {
        guard !finished else { return 0 }
        finished = true
        try? pipe?.close()
        pipe = nil
        return ChildProcess.wait(pid)
    }

    /// The last lines ffmpeg wrote, as ":\n  ..." text to append to a message.
    private func logTail() -> String {
        let lines = log.tail(lines: 8)
        return lines.isEmpty ? "" : ":\n  " + lines.joined(separator: "\n  ")
    }
}
