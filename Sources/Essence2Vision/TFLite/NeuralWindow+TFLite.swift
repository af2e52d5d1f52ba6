import Essence2Runtime

extension NeuralWindow {
    /// TFLite's SAME / VALID window (`NeuralWindow(input:kernel:stride:dilation:same:)`), or an error naming `op`.
    init(input: Int, kernel: Int, stride: Int, dilation: Int, same: Bool, for op: TFLiteOperator) throws(TFLiteError) {
        let limit = NeuralWindow.limit
        guard kernel >= 1, kernel <= limit, stride >= 1, stride <= limit, dilation >= 1, dilation <= limit else {
            throw op.error("kernel \(kernel), stride \(stride) or dilation \(dilation) out of range")
        }
        guard let window = NeuralWindow(input: input, kernel: kernel, stride: stride, dilation: dilation, same: same) else {
            throw op.error("window of \((kernel - 1) * dilation + 1) does not fit input extent \(input)")
        }
        self = window
    }
}
