import Essence2Runtime

extension RunLength {
    static func encode(_ input: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(input.count / 8 + 16)
        var literalStart = 0
        var i = 0
        func flushLiterals(upTo end: Int) {
            var start = literalStart
            while start < end {
                let count = min(128, end - start)
                out.append(UInt8(count - 1))
                out.append(contentsOf: input[start..<(start + count)])
                start += count
            }
        }
        while i < input.count {
            var run = 1
            while i + run < input.count, run < 130, input[i + run] == input[i] { run += 1 }
            if run >= 3 {
                flushLiterals(upTo: i)
                out.append(UInt8(run + 125))
                out.append(input[i])
                i += run
                literalStart = i
            } else {
                i += run
            }
        }
        flushLiterals(upTo: input.count)
        return out
    }

    /// The length `input` decodes to, or nil when it is malformed (a literal run cut short, a repeat
    /// without its byte). Allocates nothing.
}
