import Testing
@testable import Essence2Runtime

/// The runtime's neural kernels (Sources/Essence2Runtime/Neural) against naive reference implementations, in
/// double precision, on seeded random data.
@Suite struct NeuralKernelTests {
    /// A linear congruential generator's values in -1 ... 1, some exactly 0.
    static func random(_ count: Int, seed: UInt32, zeros: Bool = false) -> [Float] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            let value = Float(state >> 8) / Float(1 << 24) * 2 - 1
            return zeros && state % 3 == 0 ? 0 : value
        }
    }

    static func close(_ a: [Float], _ b: [Double], tolerance: Double = 1e-4) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs(Double($0) - $1) <= tolerance * max(1, abs($1)) }
    }

    /// A naive NHWC convolution: `filter[o][field]` with the field in `order`.
    static func referenceConvolution(
        _ input: [Float], _ filter: [Float], _ bias: [Float], inChannels: Int, outChannels: Int, rows: NeuralWindow,
        columns: NeuralWindow, order: NeuralConvolution.FieldOrder, activation: NeuralActivation
    ) -> [Double] {
        let (kh, kw, c) = (rows.kernel, columns.kernel, inChannels)
        var out: [Double] = []
        for oy in 0..<rows.output {
            for ox in 0..<columns.output {
                for o in 0..<outChannels {
                    var sum = Double(bias[o])
                    for ky in 0..<kh {
                        for kx in 0..<kw {
                            let iy = oy * rows.stride - rows.padBefore + ky * rows.dilation
                            let ix = ox * columns.stride - columns.padBefore + kx * columns.dilation
                            guard iy >= 0, iy < rows.input, ix >= 0, ix < columns.input else { continue }
                            for ic in 0..<c {
                                let k = order == .tapsThenChannels ? (ky * kw + kx) * c + ic : (ic * kh + ky) * kw + kx
                                sum += Double(filter[o * kh * kw * c + k]) * Double(input[(iy * columns.input + ix) * c + ic])
                            }
                        }
                    }
                    out.append(Double(activation.apply(Float(sum))))
                }
            }
        }
        return out
    }

    static func run(_ convolution: NeuralConvolution, _ input: [Float]) -> [Float] {
        var out = [Float](repeating: .nan, count: convolution.outputCount)
        var scratch = [Float](repeating: .nan, count: max(convolution.scratchCount, 1))
        input.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                scratch.withUnsafeMutableBufferPointer {
                    convolution.run(source.baseAddress!, into: target.baseAddress!, scratch: $0.baseAddress)
                }
            }
        }
        return out
    }

    @Test(arguments: [
        // side, in, out, kernel, stride, dilation, padding
        (9, 3, 5, 3, 1, 1, 1), (10, 4, 16, 3, 2, 1, 1), (11, 6, 9, 3, 1, 2, 2), (12, 5, 13, 3, 1, 4, 4),
        (7, 8, 8, 1, 1, 1, 0), (8, 3, 17, 1, 2, 1, 0), (9, 2, 3, 5, 2, 1, 2), (6, 7, 11, 2, 1, 1, 0),
    ])
    func convolutionMatchesTheNaiveSum(shape: (Int, Int, Int, Int, Int, Int, Int)) throws {
        let (side, cin, cout, kernel, stride, dilation, padding) = shape
        let window = try #require(NeuralWindow(input: side, kernel: kernel, stride: stride, dilation: dilation,
                                               padding: padding))
        let input = Self.random(side * side * cin, seed: 1, zeros: true)
        let filter = Self.random(cout * kernel * kernel * cin, seed: 2), bias = Self.random(cout, seed: 3)
        for order in [NeuralConvolution.FieldOrder.tapsThenChannels, .channelsThenTaps] {
            for activation in [NeuralActivation.none, .relu, .relu6, .reluN1To1] {
                let convolution = NeuralConvolution(
                    inChannels: cin, outChannels: cout, rows: window, columns: window, order: order, filter: filter,
                    bias: bias, activation: activation)
                #expect(convolution.isPointwise == (kernel == 1 && stride == 1 && padding == 0))
                let got = Self.run(convolution, input)
                let want = Self.referenceConvolution(
                    input, filter, bias, inChannels: cin, outChannels: cout, rows: window, columns: window,
                    order: order, activation: activation)
                #expect(Self.close(got, want), "\(shape) \(order) \(activation)")
                #expect(Self.run(convolution, input).map(\.bitPattern) == got.map(\.bitPattern), "deterministic")
            }
        }
    }

    @Test func sameAndValidWindowsFollowTensorFlow() throws {
        let same = try #require(NeuralWindow(input: 7, kernel: 3, stride: 2, dilation: 1, same: true))
        #expect(same.output == 4 && same.padBefore == 1)
        let valid = try #require(NeuralWindow(input: 7, kernel: 3, stride: 2, dilation: 1, same: false))
        #expect(valid.output == 3 && valid.padBefore == 0)
        #expect(NeuralWindow(input: 2, kernel: 5, stride: 1, dilation: 1, same: false) == nil)
        #expect(NeuralWindow(input: 8, kernel: 0, stride: 1, dilation: 1, same: true) == nil)
        #expect(NeuralWindow(input: 8, kernel: 3, stride: 1, dilation: 1 << 20, padding: 1) == nil)
        let padded = try #require(NeuralWindow(input: 96, kernel: 3, stride: 2, dilation: 1, padding: 1))
        #expect(padded.output == 48)
        #expect(padded.taps(at: 0) == 1..<3 && padded.taps(at: 47) == 0..<3)
    }

    @Test(arguments: [(1, 3), (1, 1), (2, 2), (3, 1)])
    func depthwiseMatchesTheNaiveSum(shape: (Int, Int)) throws {
        let (multiplier, stride) = shape
        let side = 9, cin = 11, cout = cin * multiplier
        let window = try #require(NeuralWindow(input: side, kernel: 3, stride: stride, dilation: 1, same: true))
        let input = Self.random(side * side * cin, seed: 4), filter = Self.random(9 * cout, seed: 5)
        let bias = Self.random(cout, seed: 6)
        let depthwise = NeuralDepthwise(inChannels: cin, outChannels: cout, rows: window, columns: window,
                                        filter: filter, bias: bias, activation: .relu6)
        var got = [Float](repeating: .nan, count: depthwise.outputCount)
        input.withUnsafeBufferPointer { source in
            got.withUnsafeMutableBufferPointer { depthwise.run(source.baseAddress!, into: $0.baseAddress!) }
        }
        var want: [Double] = []
        for oy in 0..<window.output {
            for ox in 0..<window.output {
                for o in 0..<cout {
                    var sum = Double(bias[o])
                    for ky in 0..<3 {
                        for kx in 0..<3 {
                            let iy = oy * stride - window.padBefore + ky, ix = ox * stride - window.padBefore + kx
                            guard iy >= 0, iy < side, ix >= 0, ix < side else { continue }
                            sum += Double(filter[(ky * 3 + kx) * cout + o]) * Double(input[(iy * side + ix) * cin + o / multiplier])
                        }
                    }
                    want.append(min(max(sum, 0), 6))
                }
            }
        }
        #expect(Self.close(got, want))
    }

    @Test(arguments: [1, 3, 8, 13, 64])
    func denseMatchesTheNaiveSumAndSkippingZerosKeepsTheBits(outputs: Int) {
        let inputs = 37
        let input = Self.random(inputs, seed: 7, zeros: true), weights = Self.random(inputs * outputs, seed: 8)
        let bias = Self.random(outputs, seed: 9).map { $0 + 2 }  // never a zero sum
        func dense(_ activation: NeuralActivation, skipZeros: Bool) -> [Float] {
            var out = [Float](repeating: .nan, count: outputs)
            input.withUnsafeBufferPointer { x in
                weights.withUnsafeBufferPointer { w in
                    bias.withUnsafeBufferPointer { b in
                        out.withUnsafeMutableBufferPointer {
                            NeuralDense.run(x, weights: w, bias: b, into: $0, activation: activation, skipZeros: skipZeros)
                        }
                    }
                }
            }
            return out
        }
        for activation in [NeuralActivation.none, .relu] {
            let want = (0..<outputs).map { o in
                Double(activation.apply(Float((0..<inputs).reduce(Double(bias[o])) {
                    $0 + Double(input[$1]) * Double(weights[$1 * outputs + o])
                })))
            }
            let got = dense(activation, skipZeros: false)
            #expect(Self.close(got, want))
            #expect(dense(activation, skipZeros: true).map(\.bitPattern) == got.map(\.bitPattern))
            // The sums in input order, in Float: the kernel's bits.
            let sequential = (0..<outputs).map { o in
                activation.apply((0..<inputs).reduce(bias[o]) { $0 + weights[$1 * outputs + o] * input[$1] })
            }
            #expect(got.map(\.bitPattern) == sequential.map(\.bitPattern))
        }
    }

    @Test func activationsClampAndOutputsSquash() {
        #expect(NeuralActivation.relu.apply(-3) == 0 && NeuralActivation.relu.apply(3) == 3)
        #expect(NeuralActivation.relu6.apply(7) == 6 && NeuralActivation.reluN1To1.apply(-2) == -1)
        #expect(NeuralActivation.none.isNone && !NeuralActivation.relu.isNone)
        let v = NeuralActivation.relu6.apply(SIMD8<Float>(-1, 0, 1, 5, 6, 7, 100, -100))
        #expect(v == SIMD8<Float>(0, 0, 1, 5, 6, 6, 6, 0))
        #expect(NeuralActivation.sigmoid(0) == 0.5 && abs(NeuralActivation.tanh(0.5) - 0.46211716) < 1e-7)
    }

    @Test func packingPutsEightOutputChannelsSideBySide() {
        let filter = (0..<(10 * 3)).map(Float.init)  // 10 output channels of depth 3
        let packed = NeuralGEMM.pack(filter, outChannels: 10, depth: 3)
        #expect(packed.count == 2 * 3 * 8)
        #expect(packed[0..<8] == [0, 3, 6, 9, 12, 15, 18, 21])  // block 0, k 0
        #expect(packed[24..<32] == [24, 27, 0, 0, 0, 0, 0, 0])  // block 1, k 0: channels 8, 9, then padding
    }
}
