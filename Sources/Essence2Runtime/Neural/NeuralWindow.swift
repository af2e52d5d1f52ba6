/// A sliding window along one spatial axis of a convolution or pooling: the input and output extents, the kernel's
/// extent, stride, dilation and the zero padding before the first pixel.
package struct NeuralWindow: Sendable, Equatable {
    package var input: Int
    package var output: Int
    package var kernel: Int
    package var stride: Int
    package var dilation: Int
    package var padBefore: Int

    package init(input: Int, output: Int, kernel: Int, stride: Int, dilation: Int, padBefore: Int) {
        self.input = input
        self.output = output
        self.kernel = kernel
        self.stride = stride
        self.dilation = dilation
        self.padBefore = padBefore
    }

    /// The extent the kernel covers with its dilation: `(kernel - 1) * dilation + 1`.
    package var effectiveKernel: Int { (kernel - 1) * dilation + 1 }

    /// Range of kernel taps that land inside the input for output position `o`.
    @inlinable @inline(__always)
    package func taps(at o: Int) -> Range<Int> {
        let origin = o * stride - padBefore
        var first = 0
        while first < kernel, origin + first * dilation < 0 { first += 1 }
        var end = kernel
        while end > first, origin + (end - 1) * dilation >= input { end -= 1 }
        return first..<end
    }
}
