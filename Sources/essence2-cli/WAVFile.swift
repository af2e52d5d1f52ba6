/// Writes 16-bit PCM mono WAV files (the engine's 16 kHz audio, for muxing or alongside a .y4m).
enum WAVFile {
    /// The 44-byte RIFF/WAVE header of a 16-bit PCM file of `sampleCount` samples per channel.
    static func header(sampleCount: Int, sampleRate: Int, channels: Int = 1) -> [UInt8] {
        let dataBytes = UInt32(truncatingIfNeeded: sampleCount * channels * 2)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(44)
        func ascii(_ text: String) { bytes.append(contentsOf: Array(text.utf8)) }
        func u32(_ value: UInt32) { for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) } }
        func u16(_ value: UInt16) { bytes.append(UInt8(truncatingIfNeeded: value)); bytes.append(UInt8(truncatingIfNeeded: value >> 8)) }
        ascii("RIFF"); u32(36 &+ dataBytes); ascii("WAVE")
        ascii("fmt "); u32(16); u16(1); u16(UInt16(channels)); u32(UInt32(sampleRate))
        u32(UInt32(sampleRate * channels * 2)); u16(UInt16(channels * 2)); u16(16)
        ascii("data"); u32(dataBytes)
        return bytes
    }

    /// Writes `samples` (mono) followed by silence up to `totalSamples` when that is larger.
    static func write(path: String, samples: [Int16], sampleRate: Int, paddedTo totalSamples: Int = 0) throws(CLIError) {
        let count = max(samples.count, totalSamples)
        let file = try OutputFile(creating: path)
        try file.write(header(sampleCount: count, sampleRate: sampleRate))
        let little = samples.map { $0.littleEndian }
        try little.withUnsafeBufferPointer { (buffer) throws(CLIError) in try file.write(UnsafeRawBufferPointer(buffer)) }
        if count > samples.count {
            let silence = [UInt8](repeating: 0, count: (count - samples.count) * 2)
            try file.write(silence)
        }
        try file.close()
    }
}
