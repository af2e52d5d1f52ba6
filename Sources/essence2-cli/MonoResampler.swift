import CSamplerate

/// Streaming sample-rate conversion of one channel with libsamplerate (sinc, medium quality).
final class MonoResampler {
    private let state: OpaquePointer
    private let ratio: Double
    private var output: [Float]

    /// - Throws: when libsamplerate refuses the ratio (rates must be positive and within a factor of 256).
    init(inputRate: Int, outputRate: Int) throws(CLIError) {
        ratio = Double(outputRate) / Double(inputRate)
        guard inputRate > 0, outputRate > 0, src_is_valid_ratio(ratio) != 0 else {
            throw CLIError("cannot convert \(inputRate) Hz to \(outputRate) Hz", status: ExitStatus.badAudio)
        }
        var error: Int32 = 0
        guard let state = src_new(Int32(SRC_SINC_MEDIUM_QUALITY), 1, &error) else {
            throw CLIError("libsamplerate: \(String(cString: src_strerror(error)))")
        }
        self.state = state
        output = [Float](repeating: 0, count: 8192)
    }

    deinit { src_delete(state) }

    /// Converts `input` and appends the converted samples to `sink`; `last` flushes the converter's tail.
    func process(_ input: UnsafeBufferPointer<Float>, last: Bool, into sink: inout [Float]) throws(CLIError) {
        var consumed = 0
        while true {
            let remaining = input.count - consumed
            var generated = 0
            let error: Int32 = output.withUnsafeMutableBufferPointer { out in
                var data = SRC_DATA()
                data.data_in = remaining > 0 ? input.baseAddress.map { UnsafePointer($0 + consumed) } : nil
                data.input_frames = remaining
                data.data_out = out.baseAddress
                data.output_frames = out.count
                data.end_of_input = last ? 1 : 0
                data.src_ratio = ratio
                let status = src_process(state, &data)
                consumed += data.input_frames_used
                generated = data.output_frames_gen
                return status
            }
            if error != 0 { throw CLIError("libsamplerate: \(String(cString: src_strerror(error)))") }
            sink.append(contentsOf: output[0..<generated])
            if consumed >= input.count && (!last || generated == 0) { return }
        }
    }
}
