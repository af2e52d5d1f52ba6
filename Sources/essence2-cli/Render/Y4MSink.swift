import Essence2Runtime
import Glibc

/// Writes the video as a .y4m file and the speech as a 16 kHz mono .wav padded to the video's length; both
/// appear under their names only when complete (`AtomicOutput`).
final class Y4MSink: FrameSink {
    private let video: AtomicOutput
    private let audioPath: String
    private let audio: [Int16]
    private let writer: Y4MWriter

    var outputs: [String] { [video.path, audioPath] }

    private let cadence: FrameCadence

    init(videoPath: String, audioPath: String, width: Int, height: Int, audio: [Int16],
         cadence: FrameCadence = .essence2) throws(CLIError) {
        self.audioPath = audioPath
        self.cadence = cadence
        self.audio = audio
        video = try AtomicOutput(path: videoPath)
        writer = try Y4MWriter(file: video.file, width: width, height: height, framesPerSecond: cadence.framesPerSecond)
    }

    func append(bgr: UnsafeRawBufferPointer) throws(CLIError) {
        try writer.append(bgr: bgr)
    }

    func finish(frameCount: Int) throws(CLIError) {
        let wav = try AtomicOutput(path: audioPath)
        try WAVFile.write(to: wav.file, samples: audio, sampleRate: SpeechAudio.sampleRate,
                          paddedTo: frameCount * cadence.samplesPerFrame)
        try video.commit()
        try wav.commit()
    }

    func abandon() {
        video.discard()
    }
}
