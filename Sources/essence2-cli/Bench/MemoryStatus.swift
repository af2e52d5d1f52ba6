import Glibc

/// This process's memory figures from /proc/self/status.
enum MemoryStatus {
    /// Peak resident set size (VmHWM) in bytes, nil when unavailable.
    static func peakResidentBytes() -> Int? { field("VmHWM:") }

    /// Current resident set size (VmRSS) in bytes, nil when unavailable.
    static func residentBytes() -> Int? { field("VmRSS:") }

    /// Reads a "Name:   1234 kB" line.
    static func field(_ name: String) -> Int? {
        guard let file = fopen("/proc/self/status", "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 512)
        while fgets(&buffer, Int32(buffer.count), file) != nil {
            let line = String(nulTerminated: buffer)
            if line.hasPrefix(name) { return parseKilobytes(line.dropFirst(name.count)) }
        }
        return nil
    }

    /// "   1234 kB\n" -> 1234 * 1024.
    static func parseKilobytes<S: StringProtocol>(_ text: S) -> Int? {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
        guard let number = parts.first.flatMap({ Int($0) }) else { return nil }
        return number * 1024
    }
}
