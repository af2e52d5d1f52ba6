extension NeuralConvolution {
    /// im2col: one row of `depth` values per output pixel, in `order`, zeros where the kernel overhangs the input.
    func gather(_ source: UnsafePointer<Float>, into scratch: UnsafeMutablePointer<Float>) {
        switch order {
        case .tapsThenChannels: gatherTapsThenChannels(source, into: scratch)
        case .channelsThenTaps: gatherChannelsThenTaps(source, into: scratch)
        }
    }

    /// `[ky][kx][channel]`: each tap's channels are contiguous in the input, copied as a run.
    private func gatherTapsThenChannels(_ source: UnsafePointer<Float>, into scratch: UnsafeMutablePointer<Float>) {
        let c = inChannels
        var dst = scratch
        for oy in 0..<rows.output {
            let y0 = oy * rows.stride - rows.padBefore
            for ox in 0..<columns.output {
                let x0 = ox * columns.stride - columns.padBefore
                for ky in 0..<rows.kernel {
                    let iy = y0 + ky * rows.dilation
                    for kx in 0..<columns.kernel {
                        let ix = x0 + kx * columns.dilation
                        if iy >= 0, iy < rows.input, ix >= 0, ix < columns.input {
                            dst.update(from: source + (iy * columns.input + ix) * c, count: c)
                        } else {
                            dst.update(repeating: 0, count: c)
                        }
                        dst += c
                    }
                }
            }
        }
    }

    /// `[channel][ky][kx]`: each pixel's taps written channel by channel, `taps` apart.
    private func gatherChannelsThenTaps(_ source: UnsafePointer<Float>, into scratch: UnsafeMutablePointer<Float>) {
        let c = inChannels, taps = rows.kernel * columns.kernel
        var dst = scratch
        for oy in 0..<rows.output {
            let y0 = oy * rows.stride - rows.padBefore
            for ox in 0..<columns.output {
                let x0 = ox * columns.stride - columns.padBefore
                for ky in 0..<rows.kernel {
                    let iy = y0 + ky * rows.dilation
                    for kx in 0..<columns.kernel {
                        let ix = x0 + kx * columns.dilation
                        let tap = dst + ky * columns.kernel + kx
                        if iy >= 0, iy < rows.input, ix >= 0, ix < columns.input {
                            let pixel = source + (iy * columns.input + ix) * c
                            for channel in 0..<c { tap[channel * taps] = pixel[channel] }
                        } else {
                            for channel in 0..<c { tap[channel * taps] = 0 }
                        }
                    }
                }
                dst += depth
            }
        }
    }
}
