/// The 16 kHz int16 samples of one stream that are still needed, addressed by their absolute position in the stream.
struct SampleBuffer: Sendable {
    /// Retained samples; `storage[head]` is the sample at absolute position `start`.
    private var storage: [Int16] = []
    private var head = 0
    /// Absolute stream position of the oldest retained sample.
    private(set) var start = 0

    /// Absolute stream position one past the newest sample (the number of samples ever appended).
    var end: Int { start + storage.count - head }

    mutating func append(_ samples: UnsafeBufferPointer<Int16>) {
        storage.append(contentsOf: samples)
    }

    /// Forgets every sample before absolute position `position` (clamped to what is held).
    mutating func discard(before position: Int) {
        let drop = min(max(position - start, 0), storage.count - head)
        head += drop
        start += drop
        // Compact now and then so the array does not grow without bound; amortised O(1) per sample.
        if head >= 4096 && head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
    }

    /// The samples at absolute positions `from ..< from + count` that are retained (those before what is held
    /// are left out; the caller asks only for retained ones).
    func samples(from: Int, count: Int) -> [Int16] {
        let lo = min(max(start, from), end), hi = max(min(end, from + count), lo)
        return Array(storage[(head + lo - start)..<(head + hi - start)])
    }

    /// Writes `output.count` samples starting at absolute position `from`, scaled to -1...1, into `output`.
    /// Positions before the stream, before what is retained, or at or after `realEnd` read as silence.
    package func read(from: Int, realEnd: Int, into output: UnsafeMutableBufferPointer<Float>) {
        let count = output.count
        let lo = min(max(start, from), from + count)
        let hi = max(min(end, realEnd, from + count), lo)
        let scale: Float = 1 / 32768
        storage.withUnsafeBufferPointer { src in
            for i in 0..<count { output[i] = 0 }
            guard lo < hi, let source = src.baseAddress, let target = output.baseAddress else { return }
            let input = source + (head + lo - start), samples = target + (lo - from)
            for i in 0..<(hi - lo) { samples[i] = Float(input[i]) * scale }
        }
    }
}
