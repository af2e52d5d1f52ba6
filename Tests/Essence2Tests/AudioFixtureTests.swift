import Glibc
import Testing
@testable import Essence2Runtime
@testable import Essence2Vision
@testable import Essence2Authoring

/// Speech fixtures made by tools/make_speech_fixture.py: 16 kHz mono int16 WAV files with espeak-ng phoneme timing.
enum SpeechFixture {
    struct Phoneme: Equatable {
        /// First sample of the phoneme in the 16 kHz file, as espeak-ng reports it.
        var start: Int
        /// First sample after it (the next phoneme's start, or the end of the audio).
        var end: Int
        var name: String
    }

    struct Audio {
        var sampleRate: Int
        var channels: Int
        var samples: [Int16]
    }

    static let directory: String = {
        let file = #filePath
        let cut = file.lastIndex(of: "/").map { String(file[..<$0]) } ?? "."
        return cut + "/Fixtures"
    }()

    /// Whole contents of a file, or nil when it cannot be read.
    static func bytes(ofFile path: String) -> [UInt8]? {
        guard let f = fopen(path, "rb") else { return nil }
        defer { fclose(f) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
            if n == 0 { break }
            out.append(contentsOf: chunk[0..<n])
        }
        return out
    }

    /// Parses a RIFF/WAVE file of 16-bit PCM, walking its chunks (so extra chunks before `data` are skipped).
    static func parseWAV(_ b: [UInt8]) -> Audio? {
        func u32(_ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 | Int(b[i + 3]) << 24 }
        func u16(_ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
        func tag(_ i: Int) -> String { String(decoding: b[i..<(i + 4)], as: UTF8.self) }
        guard b.count >= 12, tag(0) == "RIFF", tag(8) == "WAVE" else { return nil }
        var format: (rate: Int, channels: Int)?
        var position = 12
        while position + 8 <= b.count {
            let size = u32(position + 4)
            let body = position + 8
            guard body + size <= b.count else { return nil }
            switch tag(position) {
            case "fmt ":
                guard size >= 16, u16(body) == 1, u16(body + 14) == 16 else { return nil }
                format = (u32(body + 4), u16(body + 2))
            case "data":
                guard let format else { return nil }
                var samples = [Int16](repeating: 0, count: size / 2)
                for i in samples.indices {
                    samples[i] = Int16(bitPattern: UInt16(b[body + 2 * i]) | UInt16(b[body + 2 * i + 1]) << 8)
                }
                return Audio(sampleRate: format.rate, channels: format.channels, samples: samples)
            default:
                break
            }
            position = body + size + (size & 1)
        }
        return nil
    }

    /// Parses "start_sample name" lines; each phoneme ends where the next starts (the last at `total`).
    static func parsePhonemes(_ text: String, total: Int) -> [Phoneme] {
        var list: [Phoneme] = []
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let start = Int(parts[0]) else { continue }
            list.append(Phoneme(start: start, end: total, name: String(parts[1])))
        }
        for i in list.indices.dropLast() { list[i].end = list[i + 1].start }
        return list.filter { $0.end > $0.start }
    }

    /// The samples of fixture `name`.wav (16 kHz mono, checked).
    static func samples(_ name: String) throws -> [Int16] {
        let bytes = try #require(Self.bytes(ofFile: "\(directory)/\(name).wav"), "missing fixture \(name).wav")
        let audio = try #require(parseWAV(bytes), "\(name).wav is not 16-bit PCM WAV")
        try #require(audio.sampleRate == 16000 && audio.channels == 1)
        return audio.samples
    }

    /// The phonemes of fixture `name`.phn.
    static func phonemes(_ name: String, total: Int) throws -> [Phoneme] {
        let bytes = try #require(Self.bytes(ofFile: "\(directory)/\(name).phn"), "missing fixture \(name).phn")
        return parsePhonemes(String(decoding: bytes, as: UTF8.self), total: total)
    }
}

@Test func speechFixturesAre16kMonoWithPhonemeTiming() throws {
    for name in ["speech_bilabial", "speech_vowels"] {
        let samples = try SpeechFixture.samples(name)
        #expect(samples.count > 16000)
        let phonemes = try SpeechFixture.phonemes(name, total: samples.count)
        #expect(phonemes.count >= 5)
        #expect(phonemes.allSatisfy { $0.start >= 0 && $0.end <= samples.count })
    }
    let samples = try SpeechFixture.samples("speech_bilabial")
    let names = try SpeechFixture.phonemes("speech_bilabial", total: samples.count).map(\.name)
    #expect(names.filter { ["p", "b", "m"].contains($0) }.count >= 10)
}

@Test func wavReaderWalksChunksAndRejectsOtherData() {
    func le32(_ v: Int) -> [UInt8] { [UInt8(v & 255), UInt8(v >> 8 & 255), UInt8(v >> 16 & 255), UInt8(v >> 24 & 255)] }
    let fmt: [UInt8] = Array("fmt ".utf8) + le32(16) + [1, 0, 1, 0] + le32(16000) + le32(32000) + [2, 0, 16, 0]
    let list: [UInt8] = Array("LIST".utf8) + le32(3) + [7, 7, 7, 0]  // odd size, padded
    let data: [UInt8] = Array("data".utf8) + le32(6) + [1, 0, 0xFF, 0xFF, 0x00, 0x80]
    let body = Array("WAVE".utf8) + fmt + list + data
    let file = Array("RIFF".utf8) + le32(body.count) + body
    let audio = SpeechFixture.parseWAV(file)
    #expect(audio?.samples == [1, -1, Int16.min])
    #expect(audio?.sampleRate == 16000)
    #expect(audio?.channels == 1)
    #expect(SpeechFixture.parseWAV(Array("not a wave file at all".utf8)) == nil)
    #expect(SpeechFixture.parseWAV(Array(file.prefix(30))) == nil)
}

@Test func phonemeListEndsEachPhonemeAtTheNextStart() {
    let list = SpeechFixture.parsePhonemes("0 b\n100 a\n250 m\n", total: 400)
    #expect(list == [
        .init(start: 0, end: 100, name: "b"), .init(start: 100, end: 250, name: "a"),
        .init(start: 250, end: 400, name: "m"),
    ])
}
