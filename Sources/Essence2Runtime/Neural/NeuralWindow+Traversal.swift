extension NeuralWindow {
    /// Visits the output pixels of a `rows` x `columns` window in row-major order: `body(y0, x0, rowTaps,
    /// colTaps)` with the input position of the kernel's first tap and the taps that land inside the input (the
    /// depthwise kernel and max pooling skip the padding this way).
    @inlinable @inline(__always)
    package static func forEachOutput(
        rows: NeuralWindow, columns: NeuralWindow, _ body: (Int, Int, Range<Int>, Range<Int>) -> Void
    ) {
        for oy in 0..<rows.output {
            let rowTaps = rows.taps(at: oy)
            let y0 = oy * rows.stride - rows.padBefore
            for ox in 0..<columns.output {
                body(y0, ox * columns.stride - columns.padBefore, rowTaps, columns.taps(at: ox))
            }
        }
    }
}
