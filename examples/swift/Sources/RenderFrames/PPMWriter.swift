import Essence2Kit
import FoundationEssentials

/// Writes a frame as a binary PPM (P6) image: the B,G,R bytes turned into R,G,B.
enum PPMWriter {
    static func write(_ frame: Essence2Frame, to path: String) throws {
        var bytes = Array("P6\n\(frame.width) \(frame.height)\n255\n".utf8)
        bytes.reserveCapacity(bytes.count + frame.bgr.count)
        var i = 0
        while i + 2 < frame.bgr.count {
            bytes.append(frame.bgr[i + 2])
            bytes.append(frame.bgr[i + 1])
            bytes.append(frame.bgr[i])
            i += 3
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            throw WAVReader.Failure(description: "cannot write \(path)")
        }
    }
}

/// `number` with leading zeros to 5 digits.
func fiveDigits(_ number: Int) -> String {
    let digits = String(number)
    return String(repeating: "0", count: max(0, 5 - digits.count)) + digits
}
