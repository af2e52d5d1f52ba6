extension NeuralWindow {
    /// Largest kernel, stride and dilation a window takes.
    package static let limit = 1 << 16

    /// TensorFlow's SAME (`same`: ceil(input / stride) outputs, (total padding) / 2 before) or VALID (no
    /// padding) window; nil when the kernel, stride or dilation is out of `1 ... limit` or no output fits.
    package init?(input: Int, kernel: Int, stride: Int, dilation: Int, same: Bool) {
        guard (1...Self.limit).contains(kernel), (1...Self.limit).contains(stride),
              (1...Self.limit).contains(dilation), input >= 0 else { return nil }
        let effective = (kernel - 1) * dilation + 1
        let output: Int, padBefore: Int
        if same {
            output = (input + stride - 1) / stride
            padBefore = Swift.max((output - 1) * stride + effective - input, 0) / 2
        } else {
            output = input >= effective ? (input - effective) / stride + 1 : 0
            padBefore = 0
        }
        guard output >= 1 else { return nil }
        self.init(input: input, output: output, kernel: kernel, stride: stride, dilation: dilation, padBefore: padBefore)
    }

    /// A window padded by `padding` on both sides (PyTorch's convolutions): `(input + 2 padding - effective) /
    /// stride + 1` outputs; nil when out of range as above.
    package init?(input: Int, kernel: Int, stride: Int, dilation: Int, padding: Int) {
        guard (1...Self.limit).contains(kernel), (1...Self.limit).contains(stride),
              (1...Self.limit).contains(dilation), (0...Self.limit).contains(padding), input >= 0 else { return nil }
        let span = input + 2 * padding - ((kernel - 1) * dilation + 1)
        guard span >= 0 else { return nil }
        self.init(input: input, output: span / stride + 1, kernel: kernel, stride: stride, dilation: dilation,
                  padBefore: padding)
    }
}
