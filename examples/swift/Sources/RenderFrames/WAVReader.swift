import FoundationEssentials

/// Reads 16-bit PCM WAV files (any rate; channels averaged to mono) into floats.
enum WAVReader {
    struct Speech {
        var samples: [Float]
        var rate: Double
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func read(path: String) throws -> Speech {
        guard let data = FileManager.default.contents(atPath: path) else { throw Failure(description: "cannot read \(path)") }
        let bytes = [UInt8](data)
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        guard bytes.count > 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8) else {
            throw Failure(description: "\(path) is not a WAV file")
        }
        var at = 12
        var rate = 0, channels = 0
        while at + 8 <= bytes.count {
            let size = u32(at + 4)
            if bytes[at..<(at + 4)].elementsEqual("fmt ".utf8) {
                guard u16(at + 8) == 1, u16(at + 22) == 16 else { throw Failure(description: "\(path) is not 16-bit PCM") }
                channels = u16(at + 10)
                rate = u32(at + 12)
            } else if bytes[at..<(at + 4)].elementsEqual("data".utf8), channels > 0 {
                let end = min(bytes.count, at + 8 + size)
                var samples: [Float] = []
                var i = at + 8
                while i + 2 * channels <= end {
                    var sum: Float = 0
                    for c in 0..<channels { sum += Float(Int16(bitPattern: UInt16(u16(i + 2 * c)))) }
                    samples.append(sum / Float(channels) / 32767)
                    i += 2 * channels
                }
                return Speech(samples: samples, rate: Double(rate))
            }
            at += 8 + size + (size & 1)
        }
        throw Failure(description: "\(path) has no audio")
    }
}
