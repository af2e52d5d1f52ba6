import Essence2Runtime

/// A sliding window along one spatial axis: kernel extent, stride, dilation and the padding before the first pixel.
struct TFLiteWindow: Sendable {
    var input: Int
    var output: Int
    var kernel: Int
    var stride: Int
    var dilation: Int
    var padBefore: Int

    /// TFLite's SAME / VALID rules: SAME gives ceil(input / stride) outputs and pads (total / 2) before.
    init(input: Int, kernel: Int, stride: Int, dilation: Int, same: Bool, for op: TFLiteOperator) throws(TFLiteError) {
        let limit = 1 << 16
        guard kernel >= 1, kernel <= limit, stride >= 1, stride <= limit, dilation >= 1, dilation <= limit else {
            throw op.error("kernel \(kernel), stride \(stride) or dilation \(dilation) out of range")
        }
        let effective = (kernel - 1) * dilation + 1
        self.input = input
        self.kernel = kernel
        self.stride = stride
        self.dilation = dilation
        if same {
            output = (input + stride - 1) / stride
            let total = Swift.max((output - 1) * stride + effective - input, 0)
            padBefore = total / 2
        } else {
            output = input >= effective ? (input - effective) / stride + 1 : 0
            padBefore = 0
        }
        guard output >= 1 else { throw op.error("window of \(effective) does not fit input extent \(input)") }
    }

    /// Range of kernel taps that land inside the input for output position `o`.
    @inline(__always)
    func taps(at o: Int) -> Range<Int> {
        let origin = o * stride - padBefore
        var first = 0
        while first < kernel, origin + first * dilation < 0 { first += 1 }
        var end = kernel
        while end > first, origin + (end - 1) * dilation >= input { end -= 1 }
        return first..<end
    }
}
