extension NeuralConvolution {
    /// im2col: one row of `depth` values per output pixel, in `order`, zeros where the kernel overhangs the input.
    /// In `[ky][kx][channel]` order each tap's channels are contiguous in the input and copied as a run; in
    /// `[channel][ky][kx]` order they are written `taps` apart.
    func gather(_ source: UnsafePointer<Float>, into scratch: UnsafeMutablePointer<Float>) {
        let c = inChannels, taps = rows.kernel * columns.kernel
        let runs = order == .tapsThenChannels
        var dst = scratch
        for oy in 0..<rows.output {
            let y0 = oy * rows.stride - rows.padBefore
            for ox in 0..<columns.output {
                let x0 = ox * columns.stride - columns.padBefore
                for ky in 0..<rows.kernel {
                    let iy = y0 + ky * rows.dilation
                    for kx in 0..<columns.kernel {
                        let ix = x0 + kx * columns.dilation
                        let tap = ky * columns.kernel + kx
                        let inside = iy >= 0 && iy < rows.input && ix >= 0 && ix < columns.input
                        let pixel = source + (iy * columns.input + ix) * c
                        if runs {
                            if inside {
                                (dst + tap * c).update(from: pixel, count: c)
                            } else {
                                (dst + tap * c).update(repeating: 0, count: c)
                            }
                        } else {
                            let field = dst + tap
                            for channel in 0..<c { field[channel * taps] = inside ? pixel[channel] : 0 }
                        }
                    }
                }
                dst += depth
            }
        }
    }
}
