import Glibc

/// Pipes raw B,G,R frames into ffmpeg, which encodes them (H.264, or MPEG-4 part 2 without libx264) and
/// muxes the speech, written to a temporary 16 kHz .wav, as AAC.
final class FFmpegSink: FrameSink {
    private let outputPath: String
    private let temporary: TemporaryDirectory
    private let logPath: String
    private var pipe: OutputFile?
    private var pid: pid_t
    private var finished = false

    var outputs: [String] { [outputPath] }

    /// The arguments after the program name: video from standard input, audio from `audioPath`, padded
    /// with silence to the video's length (`apad` + `-shortest`).
    static func arguments(width: Int, height: Int, audioPath: String, outputPath: String, codec: VideoCodec) -> [String] {
        var arguments = ["-hide_banner", "-loglevel", "error", "-y",
                         "-f", "rawvideo", "-pix_fmt", "bgr24", "-s", "\(width)x\(height)", "-r", "25", "-i", "-",
                         "-i", audioPath, "-map", "0:v:0", "-map", "1:a:0"]
        if width % 2 != 0 || height % 2 != 0 {
            // 4:2:0 needs even sizes: drop the odd last column or row.
            arguments += ["-vf", "crop=\(width / 2 * 2):\(height / 2 * 2):0:0"]
        }
        switch codec {
        case .h264: arguments += ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-crf", "18"]
        case .mpeg4: arguments += ["-c:v", "mpeg4", "-pix_fmt", "yuv420p", "-q:v", "2"]
        }
        arguments += ["-af", "apad", "-c:a", "aac", "-b:a", "128k", "-shortest", "-movflags", "+faststart", outputPath]
        return arguments
    }

    init(ffmpeg: String, codec: VideoCodec, width: Int, height: Int, audio: [Int16], outputPath: String) throws(CLIError) {
        self.outputPath = outputPath
        temporary = try TemporaryDirectory()
        let audioPath = temporary.file("speech.wav")
        logPath = temporary.file("ffmpeg.log")
        try WAVFile.write(path: audioPath, samples: audio, sampleRate: SpeechAudio.sampleRate)
        let log = try OutputFile(creating: logPath)
        let (readEnd, writeEnd) = try ChildProcess.pipe()
        let devNull = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer {
            close(readEnd)
            if devNull >= 0 { close(devNull) }
        }
        do throws(CLIError) {
            pid = try ChildProcess.spawn(
                [ffmpeg] + Self.arguments(width: width, height: height, audioPath: audioPath, outputPath: outputPath, codec: codec),
                stdin: readEnd, stdout: devNull >= 0 ? devNull : nil, stderr: log.descriptor)
        } catch {
            close(writeEnd)
            throw error
        }
        try? log.close()
        pipe = OutputFile(descriptor: writeEnd, name: "the pipe to ffmpeg")
    }

    func append(bgr: UnsafeRawBufferPointer) throws(CLIError) {
        guard let pipe else { throw CLIError("ffmpeg was already finished") }
        do throws(CLIError) {
            try pipe.write(bgr)
        } catch {
            // ffmpeg has gone away (EPIPE); its own message says why.
            _ = stopAndWait()
            throw CLIError("ffmpeg failed\(logTail())")
        }
    }

    func finish(frameCount: Int) throws(CLIError) {
        let status = stopAndWait()
        if status != 0 {
            unlink(outputPath)
            throw CLIError("ffmpeg failed (exit status \(status))\(logTail())")
        }
        temporary.remove()
    }

    func abandon() {
        if !finished {
            kill(pid, SIGTERM)
            _ = stopAndWait()
        }
        unlink(outputPath)
        temporary.remove()
    }

    /// Closes the pipe (end of video) and waits for ffmpeg to exit; returns its status.
    private func stopAndWait() -> Int32 {
        guard !finished else { return 0 }
        finished = true
        try? pipe?.close()
        pipe = nil
        return ChildProcess.wait(pid)
    }

    /// The last lines ffmpeg wrote, as ": ..." text to append to a message.
    private func logTail() -> String {
        guard let file = fopen(logPath, "r") else { return "" }
        defer { fclose(file) }
        var lines: [String] = []
        var buffer = [CChar](repeating: 0, count: 1024)
        while fgets(&buffer, Int32(buffer.count), file) != nil {
            let line = String(nulTerminated: buffer).trimmingTrailingNewline()
            if !line.isEmpty { lines.append(line) }
            if lines.count > 8 { lines.removeFirst() }
        }
        return lines.isEmpty ? "" : ":\n  " + lines.joined(separator: "\n  ")
    }
}
