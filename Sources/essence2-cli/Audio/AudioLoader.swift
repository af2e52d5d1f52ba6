import CSndfile
import Essence2Runtime
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
        // The library's own resampler (the one the engine uses for fed audio), for any other rate.
        var resampler: StreamResampler?
        if rate != SpeechAudio.sampleRate {
            guard let made = StreamResampler(inputRate: rate, outputRate: SpeechAudio.sampleRate) else {
                throw CLIError("cannot convert '\(path)' from \(rate) Hz: essence2 takes \(StreamResampler.rates.lowerBound) to "
                               + "\(StreamResampler.rates.upperBound) Hz", status: ExitStatus.badAudio)
            }
            resampler = made
        }
        var interleaved = [Float](repeating: 0, count: blockFrames * channels)
        var mono = [Float](repeating: 0, count: blockFrames)
        var converted: [Float] = []
        if info.frames > 0 && info.frames < Int64(Int32.max) {
            converted.reserveCapacity(Int(Double(info.frames) * Double(SpeechAudio.sampleRate) / Double(rate)) + 64)
        }
        while true {
            let got = Int(interleaved.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, sf_count_t(blockFrames)) })
            if got <= 0 { break }
            interleaved.withUnsafeBufferPointer { source in
                mono.withUnsafeMutableBufferPointer { AudioMixing.downmix(source, channels: channels, frames: got, into: $0) }
            }
            if resampler != nil {
                mono.withUnsafeBufferPointer { resampler?.process(UnsafeBufferPointer(rebasing: $0[0..<got]), into: &converted) }
            } else {
                converted.append(contentsOf: mono[0..<got])
            }
        }
        resampler?.flush(into: &converted)
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
