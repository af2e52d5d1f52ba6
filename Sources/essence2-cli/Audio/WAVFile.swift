import CSndfile

/// Writes 16-bit PCM mono WAV files (the engine's 16 kHz audio, for muxing or alongside a .y4m) through
/// libsndfile, which also reads every input.
enum WAVFile {
    /// Writes `samples` (mono) followed by silence up to `totalSamples` when that is larger, atomically: the file
    /// appears whole under `path` or not at all (an existing one is replaced only by a finished file).
    static func write(path: String, samples: [Int16], sampleRate: Int, paddedTo totalSamples: Int = 0) throws(CLIError) {
        let output = try AtomicOutput(path: path)
        try write(to: output.file, samples: samples, sampleRate: sampleRate, paddedTo: totalSamples)
        try output.commit()
    }

    /// Writes the WAV file into the open `file` (which stays open; the caller closes it).
    static func write(to file: OutputFile, samples: [Int16], sampleRate: Int, paddedTo totalSamples: Int = 0) throws(CLIError) {
        var info = SF_INFO()
        info.samplerate = Int32(clamping: sampleRate)
        info.channels = 1
        info.format = Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16)
        guard let sound = sf_open_fd(file.descriptor, Int32(SFM_WRITE), &info, 0) else {
            throw CLIError("cannot write '\(file.path)': \(String(cString: sf_strerror(nil)))")
        }
        var written = samples.withUnsafeBufferPointer { sf_write_short(sound, $0.baseAddress, sf_count_t($0.count)) }
        var expected = sf_count_t(samples.count)
        if totalSamples > samples.count {
            let silence = [Int16](repeating: 0, count: totalSamples - samples.count)
            written += silence.withUnsafeBufferPointer { sf_write_short(sound, $0.baseAddress, sf_count_t($0.count)) }
            expected += sf_count_t(silence.count)
        }
        let failure = sf_error(sound)
        let closed = sf_close(sound)
        guard written == expected, failure == 0, closed == 0 else {
            let reason = failure != 0 ? String(cString: sf_error_number(failure)) : "short write (disk full?)"
            throw CLIError("cannot write '\(file.path)': \(reason)")
        }
    }
}
