/// Reads the 16-bit mono PCM WAV that a program writes to a pipe (espeak-ng --stdout), where the sizes in the
/// header may be unknown (0 or 0xFFFFFFFF): the data chunk runs to the end.
enum WAVBytes {
    /// The sample rate and samples, or nil when the bytes are not 16-bit mono PCM WAV.
    static func parseMono16(_ bytes: [UInt8]) -> (rate: Int, samples: [Int16])? {
        func u32(_ at: Int) -> Int? {
            guard at >= 0, at + 4 <= bytes.count else { return nil }
            return Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= bytes.count else { return nil }
            return Int(bytes[at]) | Int(bytes[at + 1]) << 8
        }
        guard bytes.count >= 12, Array(bytes[0..<4]) == Array("RIFF".utf8), Array(bytes[8..<12]) == Array("WAVE".utf8) else {
            return nil
        }
        var at = 12
        var rate: Int?
        while at + 8 <= bytes.count {
            let id = String(decoding: bytes[at..<(at + 4)], as: UTF8.self)
            guard let size = u32(at + 4) else { return nil }
            if id == "fmt " {
                guard u16(at + 8) == 1, u16(at + 10) == 1, u16(at + 22) == 16, let sampleRate = u32(at + 12) else { return nil }
                rate = sampleRate
            } else if id == "data", let rate {
                let start = at + 8
                let end = (size == 0 || size >= 0x7FFF_FFFF || start + size > bytes.count) ? bytes.count : start + size
                var samples: [Int16] = []
                samples.reserveCapacity((end - start) / 2)
                var i = start
                while i + 1 < end {
                    samples.append(Int16(bitPattern: UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8))
                    i += 2
                }
                return (rate, samples)
            }
            guard size < bytes.count else { return nil }
            at += 8 + size + (size & 1)
        }
        return nil
    }
}
