import CSndfile
import Glibc

/// Reads speech from any file libsndfile understands and turns it into the engine's 16 kHz mono int16.
enum AudioLoader {
    /// Frames read from the file per block.
    private static let blockFrames = 16384

    /// Reads, downmixes (channel average) and resamples `path`.
    /// - Throws: `CLIError` with status 3 when the file is missing, unreadable or holds no samples.
    static func load(path: String) throws(CLIError) -> SpeechAudio {
        try FileCheck.requireReadableFile(path, what: "speech file", status: ExitStatus.badAudio)
        if FileCheck.size(path) == 0 {
            throw CLIError("speech file '\(path)' is empty (0 bytes): give a recording with speech in it", status: ExitStatus.badAudio)
        }
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            let reason = String(cString: sf_strerror(nil))
            throw CLIError("cannot read audio '\(path)': \(reason.trimmingTrailingPeriod()) (essence2 reads WAV, FLAC, "
                           + "Ogg Vorbis/Opus, MP3, AIFF and the other formats of libsndfile; convert others first, "
                           + "for example: ffmpeg -i '\(path)' speech.wav)", status: ExitStatus.badAudio)
        }
        defer { sf_close(file) }
        let channels = Int(info.channels)
        let rate = Int(info.samplerate)
        guard channels > 0, rate > 0 else {
            throw CLIError("cannot read audio '\(path)': \(channels) channels at \(rate) Hz", status: ExitStatus.badAudio)
        }
        let resampler = rate == SpeechAudio.sampleRate ? nil : try MonoResampler(inputRate: rate, outputRate: SpeechAudio.sampleRate)
        var interleaved = [Float](repeating: 0, count: blockFrames * channels)
        var mono = [Float](repeating: 0, count: blockFrames)
        var converted: [Float] = []
        if info.frames > 0 && info.frames < Int64(Int32.max) {
            converted.reserveCapacity(Int(Double(info.frames) * Double(SpeechAudio.sampleRate) / Double(rate)) + 64)
        }
        // libsamplerate flushes its tail only when end_of_input comes with the last input block, so
        // each block is converted once the next one has been read.
        var pending: [Float] = []
        while true {
            let got = Int(interleaved.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, sf_count_t(blockFrames)) })
            let atEnd = got <= 0
            if let resampler {
                if !pending.isEmpty || atEnd {
                    try pending.withUnsafeBufferPointer { (block) throws(CLIError) in
                        try resampler.process(block, last: atEnd, into: &converted)
                    }
                }
            } else {
                converted.append(contentsOf: pending)
            }
            if atEnd { break }
            interleaved.withUnsafeBufferPointer { source in
                mono.withUnsafeMutableBufferPointer { SampleConversion.downmix(source, channels: channels, frames: got, into: $0) }
            }
            pending.removeAll(keepingCapacity: true)
            pending.append(contentsOf: mono[0..<got])
        }
        let readError = sf_error(file)
        if readError != 0 {
            throw CLIError("cannot read audio '\(path)': \(String(cString: sf_error_number(readError)))", status: ExitStatus.badAudio)
        }
        guard !converted.isEmpty else {
            throw CLIError("audio '\(path)' holds no samples", status: ExitStatus.badAudio)
        }
        return SpeechAudio(samples: converted.map(SampleConversion.int16), sourceRate: rate, sourceChannels: channels)
    }
}
