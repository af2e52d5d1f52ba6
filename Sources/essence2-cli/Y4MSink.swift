import Glibc

/// Writes the video as a .y4m file and the speech as a 16 kHz mono .wav padded to the video's length.
final class Y4MSink: FrameSink {
    private let videoPath: String
    private let audioPath: String
    private let audio: [Int16]
    private let writer: Y4MWriter

    var outputs: [String] { [videoPath, audioPath] }

    init(videoPath: String, audioPath: String, width: Int, height: Int, audio: [Int16]) throws(CLIError) {
        self.videoPath = videoPath
        self.audioPath = audioPath
        self.audio = audio
        writer = try Y4MWriter(path: videoPath, width: width, height: height)
    }

    func append(bgr: UnsafeRawBufferPointer) throws(CLIError) {
        try writer.append(bgr: bgr)
    }

    func finish(frameCount: Int) throws(CLIError) {
        try writer.finish()
        try WAVFile.write(path: audioPath, samples: audio, sampleRate: SpeechAudio.sampleRate,
                          paddedTo: frameCount * RenderTiming.samplesPerFrame)
    }

    func abandon() {
        try? writer.finish()
        unlink(videoPath)
        unlink(audioPath)
    }
}
