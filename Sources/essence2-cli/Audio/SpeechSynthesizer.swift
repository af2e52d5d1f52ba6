import Essence2Runtime

/// Text to speech through the `espeak-ng` command (a separate process, so its GPL licence stays with it).
enum SpeechSynthesizer {
    /// Whether espeak-ng is installed.
    static var isAvailable: Bool { ChildProcess.findInPath("espeak-ng") != nil }

    /// `text` spoken by espeak-ng, as 16 kHz mono samples.
    static func speak(_ text: String) throws(CLIError) -> [Int16] {
        guard let espeak = ChildProcess.findInPath("espeak-ng") else {
            throw CLIError("--say needs the espeak-ng command, which is not installed: sudo apt install espeak-ng")
        }
        let result = try ChildProcess.capture([espeak, "--stdout", "--", text])
        guard result.status == 0, let (rate, samples) = WAVBytes.parseMono16(result.output), !samples.isEmpty else {
            throw CLIError("espeak-ng could not speak the text (exit status \(result.status))")
        }
        return AudioMixing.resample(samples, from: rate)
    }
}
