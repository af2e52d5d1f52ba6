#if canImport(Glibc)
import Glibc
#endif

/// Converts a stream of mono samples from any rate to another (the engine's 16 kHz) inside the library, in
/// pieces of any size: band-limited interpolation with a windowed sinc (Blackman window, 16 zero crossings,
/// cut-off just below the lower Nyquist frequency), read from a finely sampled table. The output does not
/// depend on how the input was split into `process` calls, and it is deterministic.
///
/// Output sample n sits at input position n * inputRate / outputRate (kept as an exact integer fraction, so
/// the stream never drifts); it is computed once the input reaches past it by the filter's half width.
package struct StreamResampler: Sendable {
    package let inputRate: Int
    package let outputRate: Int
    /// Zero crossings of the sinc on each side.
    static let zeroCrossings = 16
    /// Table entries per zero crossing.
    static let oversampling = 256
    /// The rates this resampler accepts.
    package static let rates = 1_000...384_000

    /// Cut-off relative to the input's Nyquist frequency (below 1 when the output rate is the lower one).
    private let cutoff: Double
    /// The filter reaches this many input samples on each side of an output position.
    private let halfWidth: Double
    /// sinc(u) * window(u / zeroCrossings) for u = i / oversampling, i = 0 ... zeroCrossings * oversampling + 1.
    private let table: [Float]
    /// Input samples not yet consumed: `history[0]` is input sample `historyStart`.
    private var history: [Float] = []
    private var historyStart = 0
    /// Input samples taken in so far.
    private var inputCount = 0
    /// Output samples produced so far.
    private var outputCount = 0

    /// nil unless both rates are within `rates`.
    package init?(inputRate: Int, outputRate: Int = StreamFormat.sampleRate) {
        guard Self.rates.contains(inputRate), Self.rates.contains(outputRate) else { return nil }
        self.inputRate = inputRate
        self.outputRate = outputRate
        cutoff = min(1, Double(outputRate) / Double(inputRate)) * 0.97
        halfWidth = Double(Self.zeroCrossings) / cutoff
        let count = Self.zeroCrossings * Self.oversampling + 2
        table = (0..<count).map { i in
            let u = Double(i) / Double(Self.oversampling)
            guard u < Double(Self.zeroCrossings) else { return 0 }
            let sinc = u == 0 ? 1 : sin(Double.pi * u) / (Double.pi * u)
            let v = u / Double(Self.zeroCrossings)
            let window = 0.42 + 0.5 * cos(Double.pi * v) + 0.08 * cos(2 * Double.pi * v)
            return Float(sinc * window)
        }
    }

    /// Takes in `input` and appends every output sample it completes to `output`.
    package mutating func process(_ input: UnsafeBufferPointer<Float>, into output: inout [Float]) {
        history.append(contentsOf: input)
        inputCount += input.count
        produce(upTo: inputCount, flushing: false, into: &output)
    }

    /// Ends the stream: appends the output samples still owed (the input's end is followed by silence).
    package mutating func flush(into output: inout [Float]) {
        produce(upTo: inputCount, flushing: true, into: &output)
        history.removeAll()
        historyStart = inputCount
    }

    /// Output samples the input so far is worth in all (what a flush would bring the count to).
    package var expectedOutputCount: Int {
        Int((Int64(inputCount) * Int64(outputRate) + Int64(inputRate) - 1) / Int64(inputRate))
    }

    private mutating func produce(upTo available: Int, flushing: Bool, into output: inout [Float]) {
        let total = flushing ? expectedOutputCount : Int.max
        let reach = Int(halfWidth.rounded(.up))
        let scale = Float(cutoff)
        history.withUnsafeBufferPointer { samples in
            table.withUnsafeBufferPointer { kernel in
                while outputCount < total {
                    // Position of output sample n in input samples: whole part and fraction, exactly.
                    let numerator = Int64(outputCount) * Int64(inputRate)
                    let whole = Int(numerator / Int64(outputRate))
                    let fraction = Double(numerator % Int64(outputRate)) / Double(outputRate)
                    if !flushing && whole + reach >= available { break }
                    let first = max(whole - reach + 1, historyStart)
                    let last = min(whole + reach, available - 1)
                    var sum: Float = 0
                    if first <= last {
                        for k in first...last {
                            let distance = abs(Double(k - whole) - fraction) * cutoff
                            let position = distance * Double(Self.oversampling)
                            let index = Int(position)
                            guard index + 1 < kernel.count else { continue }
                            let t = Float(position - Double(index))
                            let weight = kernel[index] + (kernel[index + 1] - kernel[index]) * t
                            sum += samples[k - historyStart] * weight
                        }
                    }
                    output.append(sum * scale)
                    outputCount += 1
                }
            }
        }
        // Forget input no later output sample can reach.
        let nextWhole = Int(Int64(outputCount) * Int64(inputRate) / Int64(outputRate))
        let keepFrom = max(historyStart, min(available, nextWhole - reach))
        if keepFrom - historyStart >= 4_096 {
            history.removeFirst(keepFrom - historyStart)
            historyStart = keepFrom
        }
    }
}
