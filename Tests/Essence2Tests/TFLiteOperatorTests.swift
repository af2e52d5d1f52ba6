import Testing
@testable import Essence2Runtime
@testable import Essence2Vision
@testable import Essence2Authoring

/// Each supported operator on tiny graphs whose outputs are worked out by hand or by a direct loop.
@Suite struct TFLiteOperatorTests {
    typealias B = TFLiteModelBuilder

    static func close(_ got: [Float], _ want: [Float], tolerance: Float = 1e-5) -> Bool {
        got.count == want.count && zip(got, want).allSatisfy { abs($0 - $1) <= tolerance * Swift.max(1, abs($1)) }
    }

    /// Direct-loop convolution (NHWC input, OHWI filter; depthwise: [1, kh, kw, C * multiplier]).
    static func directConv(_ x: [Float], _ shape: [Int], _ w: [Float], _ wShape: [Int], bias: [Float], stride: Int,
                           dilation: Int, same: Bool, depthwise: Bool) -> (values: [Float], shape: [Int]) {
        let (h, width, c) = (shape[1], shape[2], shape[3])
        let (kh, kw) = (wShape[1], wShape[2])
        let cout = depthwise ? wShape[3] : wShape[0]
        func axis(_ n: Int, _ k: Int) -> (out: Int, pad: Int) {
            let eff = (k - 1) * dilation + 1
            if !same { return ((n - eff) / stride + 1, 0) }
            let out = (n + stride - 1) / stride
            return (out, Swift.max((out - 1) * stride + eff - n, 0) / 2)
        }
        let (oh, padTop) = axis(h, kh), (ow, padLeft) = axis(width, kw)
        var out = [Float]()
        for oy in 0..<oh {
            for ox in 0..<ow {
                for o in 0..<cout {
                    var acc = bias[o]
                    for ky in 0..<kh {
                        for kx in 0..<kw {
                            let iy = oy * stride - padTop + ky * dilation, ix = ox * stride - padLeft + kx * dilation
                            guard iy >= 0, iy < h, ix >= 0, ix < width else { continue }
                            if depthwise {
                                acc += x[(iy * width + ix) * c + o / (cout / c)] * w[(ky * kw + kx) * cout + o]
                            } else {
                                for i in 0..<c { acc += x[(iy * width + ix) * c + i] * w[((o * kh + ky) * kw + kx) * c + i] }
                            }
                        }
                    }
                    out.append(acc)
                }
            }
        }
        return (out, [1, oh, ow, cout])
    }

    @Test func conv3x3SamePaddingSumsEachNeighbourhood() throws {
        var b = B()
        let x = b.tensor([1, 3, 3, 1]), w = b.tensor([1, 3, 3, 1], floats: .init(repeating: 1, count: 9))
        let y = b.tensor([1, 3, 3, 1])
        b.op(TFLiteOperator.conv2D, [x, w, -1], [y], optionsType: 1, options: B.convOptions(same: true, stride: 1))
        b.inputs = [x]; b.outputs = [y]
        let out = try b.run([(1...9).map(Float.init)])
        #expect(out[0].shape == [1, 3, 3, 1])
        #expect(out[0].values == [12, 21, 16, 27, 45, 33, 24, 39, 28])
    }

    @Test func convWithStrideBiasAndFusedRelu6ClampsToZeroAndSix() throws {
        var b = B()
        let x = b.tensor([1, 4, 4, 1]), w = b.tensor([1, 1, 1, 1], floats: [1]), bias = b.tensor([1], floats: [-1])
        let y = b.tensor([1, 2, 2, 1])
        b.op(TFLiteOperator.conv2D, [x, w, bias], [y], optionsType: 1,
             options: B.convOptions(same: false, stride: 2, activation: 3))
        b.inputs = [x]; b.outputs = [y]
        let out = try b.run([(0..<16).map(Float.init)])
        #expect(out[0].values == [0, 1, 6, 6])  // pixels 0, 2, 8, 10 minus 1, clamped
    }

    @Test func convMatchesADirectLoopForOddSizesChannelsStridesAndDilation() throws {
        let settings: [(shape: [Int], k: Int, cout: Int, stride: Int, dilation: Int, same: Bool)] = [
            ([1, 5, 7, 5], 3, 11, 2, 1, true),   // im2col with padding, 11 channels (partial block)
            ([1, 5, 3, 5], 1, 11, 1, 1, true),   // pointwise: 15 rows (not a multiple of 4)
            ([1, 7, 6, 3], 3, 8, 1, 2, false),   // dilated, VALID
            ([1, 6, 6, 4], 5, 9, 2, 1, true),    // 5x5 stride 2, like the detector's first layer
        ]
        for (n, s) in settings.enumerated() {
            let xv = TFLiteFixtures.lcg(count: s.shape.reduce(1, *), seed: UInt32(10 + n), lo: -1, hi: 1)
            let wShape = [s.cout, s.k, s.k, s.shape[3]]
            let wv = TFLiteFixtures.lcg(count: wShape.reduce(1, *), seed: UInt32(20 + n), lo: -1, hi: 1)
            let bv = TFLiteFixtures.lcg(count: s.cout, seed: UInt32(30 + n), lo: -1, hi: 1)
            let want = Self.directConv(xv, s.shape, wv, wShape, bias: bv, stride: s.stride, dilation: s.dilation,
                                       same: s.same, depthwise: false)
            var b = B()
            let x = b.tensor(s.shape), w = b.tensor(wShape, floats: wv), bias = b.tensor([s.cout], floats: bv)
            let y = b.tensor(want.shape)
            b.op(TFLiteOperator.conv2D, [x, w, bias], [y], optionsType: 1,
                 options: B.convOptions(same: s.same, stride: s.stride, dilation: s.dilation))
            b.inputs = [x]; b.outputs = [y]
            let out = try b.run([xv])
            #expect(out[0].shape == want.shape)
            #expect(Self.close(out[0].values, want.values, tolerance: 1e-4), "setting \(n)")
        }
    }

    @Test func depthwiseStride2SamePaddingMatchesHandComputedValues() throws {
        var b = B()
        let xv: [Float] = (1...9).flatMap { [Float($0), 1] }  // channel 0 = 1...9, channel 1 = 1
        let wv: [Float] = (1...9).flatMap { [1, Float($0)] }  // channel 0 weights 1, channel 1 weights 1...9
        let x = b.tensor([1, 3, 3, 2]), w = b.tensor([1, 3, 3, 2], floats: wv), bias = b.tensor([2], floats: [0.5, -1])
        let y = b.tensor([1, 2, 2, 2])
        b.op(TFLiteOperator.depthwiseConv2D, [x, w, bias], [y], optionsType: 2,
             options: B.depthwiseOptions(same: true, stride: 2))
        b.inputs = [x]; b.outputs = [y]
        let out = try b.run([xv])
        #expect(out[0].values == [12.5, 27, 16.5, 23, 24.5, 15, 28.5, 11])
    }

    @Test func depthwiseMatchesADirectLoopForElevenChannelsAndForMultiplierTwo() throws {
        let settings: [(shape: [Int], cout: Int, stride: Int, same: Bool)] = [
            ([1, 6, 5, 11], 11, 1, true), ([1, 7, 7, 11], 11, 2, true), ([1, 5, 6, 3], 6, 1, false),
        ]
        for (n, s) in settings.enumerated() {
            let xv = TFLiteFixtures.lcg(count: s.shape.reduce(1, *), seed: UInt32(40 + n), lo: -1, hi: 1)
            let wShape = [1, 3, 3, s.cout]
            let wv = TFLiteFixtures.lcg(count: 9 * s.cout, seed: UInt32(50 + n), lo: -1, hi: 1)
            let bv = TFLiteFixtures.lcg(count: s.cout, seed: UInt32(60 + n), lo: -1, hi: 1)
            let want = Self.directConv(xv, s.shape, wv, wShape, bias: bv, stride: s.stride, dilation: 1, same: s.same,
                                       depthwise: true)
            var b = B()
            let x = b.tensor(s.shape), w = b.tensor(wShape, floats: wv), bias = b.tensor([s.cout], floats: bv)
            let y = b.tensor(want.shape)
            b.op(TFLiteOperator.depthwiseConv2D, [x, w, bias], [y], optionsType: 2,
                 options: B.depthwiseOptions(same: s.same, stride: s.stride, multiplier: s.cout / s.shape[3]))
            b.inputs = [x]; b.outputs = [y]
            let out = try b.run([xv])
            #expect(out[0].shape == want.shape)
            #expect(Self.close(out[0].values, want.values, tolerance: 1e-5), "setting \(n)")
        }
    }

    @Test func maxPoolPicksTheLargestValueOfEachWindowIgnoringPadding() throws {
        var b = B()
        let x = b.tensor([1, 4, 4, 1]), y = b.tensor([1, 2, 2, 1])
        let x2 = b.tensor([1, 3, 3, 1]), y2 = b.tensor([1, 2, 2, 1])
        b.op(TFLiteOperator.maxPool2D, [x], [y], optionsType: 5, options: B.poolOptions(same: false, stride: 2, filter: 2))
        b.op(TFLiteOperator.maxPool2D, [x2], [y2], optionsType: 5, options: B.poolOptions(same: true, stride: 2, filter: 2))
        b.inputs = [x, x2]; b.outputs = [y, y2]
        let out = try b.run([(0..<16).map(Float.init), (1...9).map { -Float($0) }])
        #expect(out[0].values == [5, 7, 13, 15])
        #expect(out[1].values == [-1, -3, -7, -9])
    }

    @Test func addBroadcastsPerChannelAndAcrossAxesWithFusedRelu() throws {
        var b = B()
        let a = b.tensor([1, 1, 2, 3]), c = b.tensor([3], floats: [1, 1, 1]), y = b.tensor([1, 1, 2, 3])
        b.op(TFLiteOperator.add, [a, c], [y], optionsType: 11, options: [.u8(1)])
        let p = b.tensor([1, 2, 1, 1]), q = b.tensor([1, 1, 3, 1], floats: [1, 2, 3]), z = b.tensor([1, 2, 3, 1])
        b.op(TFLiteOperator.add, [q, p], [z])
        b.inputs = [a, p]; b.outputs = [y, z]
        let out = try b.run([[1, -2, 3, -4, 5, -6], [10, 20]])
        #expect(out[0].values == [2, 0, 4, 0, 6, 0])
        #expect(out[1].shape == [1, 2, 3, 1])
        #expect(out[1].values == [11, 12, 13, 21, 22, 23])
    }

    @Test func preluScalesNegativeValuesByTheirChannelsAlpha() throws {
        var b = B()
        let x = b.tensor([1, 1, 2, 2]), alpha = b.tensor([1, 1, 2], floats: [0.5, 0.25]), y = b.tensor([1, 1, 2, 2])
        b.op(TFLiteOperator.prelu, [x, alpha], [y])
        b.inputs = [x]; b.outputs = [y]
        #expect(try b.run([[-1, 2, -3, -4]])[0].values == [-0.5, 2, -1.5, -1])
    }

    @Test func reluAndRelu6ClampTheirInput() throws {
        var b = B()
        let x = b.tensor([3]), r = b.tensor([3]), r6 = b.tensor([3])
        b.op(TFLiteOperator.relu, [x], [r])
        b.op(TFLiteOperator.relu6, [x], [r6])
        b.inputs = [x]; b.outputs = [r, r6]
        let out = try b.run([[-1, 0.5, 7]])
        #expect(out[0].values == [0, 0.5, 7])
        #expect(out[1].values == [0, 0.5, 6])
    }

    @Test func padAddsZerosAroundSpatialAndChannelAxes() throws {
        var b = B()
        let x = b.tensor([1, 1, 2, 1]), pads = b.tensor([4, 2], ints: [0, 0, 1, 0, 0, 1, 0, 1])
        let y = b.tensor([1, 2, 3, 2])
        b.op(TFLiteOperator.pad, [x, pads], [y])
        b.inputs = [x]; b.outputs = [y]
        #expect(try b.run([[1, 2]])[0].values == [0, 0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 0])
    }

    @Test func reshapeAndConcatenationKeepRowMajorOrder() throws {
        var b = B()
        let a = b.tensor([1, 2, 2]), c = b.tensor([1, 1, 2]), d = b.tensor([1, 2, 1])
        let rows = b.tensor([1, 3, 2]), columns = b.tensor([1, 2, 3]), flat = b.tensor([4]), shape = b.tensor([1], ints: [4])
        b.op(TFLiteOperator.concatenation, [a, c], [rows], optionsType: 10, options: [.i32(1), .u8(0)])
        b.op(TFLiteOperator.concatenation, [a, d], [columns], optionsType: 10, options: [.i32(-1), .u8(0)])
        b.op(TFLiteOperator.reshape, [a, shape], [flat])
        b.inputs = [a, c, d]; b.outputs = [rows, columns, flat]
        let out = try b.run([[1, 2, 3, 4], [5, 6], [7, 8]])
        #expect(out[0].values == [1, 2, 3, 4, 5, 6])
        #expect(out[1].values == [1, 2, 7, 3, 4, 8])
        #expect(out[2].shape == [4] && out[2].values == [1, 2, 3, 4])
    }

    @Test func dequantizedHalfPrecisionWeightsFeedAConvolutionExactly() throws {
        var b = B()
        let half = b.tensor([4, 1, 1, 1], halves: [0x3C00, 0xC000, 0x3800, 0x7BFF])  // 1, -2, 0.5, 65504
        let w = b.tensor([4, 1, 1, 1]), x = b.tensor([1, 1, 1, 1]), y = b.tensor([1, 1, 1, 4])
        b.op(TFLiteOperator.dequantize, [half], [w])
        b.op(TFLiteOperator.conv2D, [x, w], [y], optionsType: 1, options: B.convOptions(same: true, stride: 1))
        b.inputs = [x]; b.outputs = [y]
        #expect(try b.run([[2]])[0].values == [2, -4, 1, 131_008])
    }

    @Test func halfPrecisionConversionHandlesSubnormalsInfinityAndNaN() {
        #expect(TFLiteTensorInfo.floatFromHalf(0x0001) == 1.0 / 16_777_216)
        #expect(TFLiteTensorInfo.floatFromHalf(0x8400) == -1.0 / 16_384)
        #expect(TFLiteTensorInfo.floatFromHalf(0x7C00) == .infinity)
        #expect(TFLiteTensorInfo.floatFromHalf(0x7E00).isNaN)
        #expect(TFLiteTensorInfo.floatFromHalf(0x3555) == 0.333251953125)
    }
}
