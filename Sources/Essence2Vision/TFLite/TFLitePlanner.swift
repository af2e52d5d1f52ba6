import Essence2Runtime

/// Turns a parsed `TFLiteGraph` into a `TFLiteProgram`: folds DEQUANTIZE of constants, checks that every
/// operator is supported and reads only tensors already written, validates each operator's shapes against
/// its declared output, assigns arena offsets and packs weights.
struct TFLitePlanner {
    private var tensors: [TFLiteTensorInfo]
    private let graph: TFLiteGraph
    /// Operators left to run, with the tensors each reads as activations.
    private var steps: [(op: TFLiteOperator, reads: [Int])] = []
    /// Arena offset of each tensor, or -1.
    private var offsets: [Int]

    static func plan(_ graph: TFLiteGraph) throws(TFLiteError) -> TFLiteProgram {
        var planner = TFLitePlanner(graph: graph)
        try planner.schedule()
        let arenaCount = try planner.assignOffsets()
        return try planner.build(arenaCount: arenaCount)
    }

    private init(graph: TFLiteGraph) {
        self.graph = graph
        tensors = graph.tensors
        offsets = [Int](repeating: -1, count: graph.tensors.count)
    }

    private func isFloatConstant(_ t: Int) -> Bool {
        tensors[t].type == TFLiteTensorInfo.float32 && tensors[t].floats != nil
    }

    // MARK: - Scheduling

    private mutating func schedule() throws(TFLiteError) {
        var written = [Bool](repeating: false, count: tensors.count)
        for t in graph.inputs {
            guard tensors[t].type == TFLiteTensorInfo.float32, !tensors[t].isConstant else {
                throw TFLiteError("graph input \(tensors[t].label) must be a non-constant FLOAT32 tensor")
            }
            guard tensors[t].elementCount > 0 else { throw TFLiteError("graph input \(tensors[t].label) is empty") }
            written[t] = true
        }
        for op in graph.operators {
            guard op.outputs.count == 1 else { throw op.error("has \(op.outputs.count) outputs, expected 1") }
            let out = op.outputs[0]
            guard tensors[out].type == TFLiteTensorInfo.float32 else {
                throw op.error("output \(tensors[out].label) must be FLOAT32")
            }
            guard !written[out], !tensors[out].isConstant else {
                throw op.error("output \(tensors[out].label) is constant or already written")
            }
            if op.code == TFLiteOperator.dequantize {
                guard op.inputs.count == 1, op.inputs[0] >= 0, let values = tensors[op.inputs[0]].floats else {
                    throw op.error("only DEQUANTIZE of a constant FLOAT16 or FLOAT32 tensor is supported")
                }
                guard tensors[op.inputs[0]].elementCount == tensors[out].elementCount else {
                    throw op.error("input \(tensors[op.inputs[0]].label) and output \(tensors[out].label) differ in size")
                }
                tensors[out].floats = values
                continue
            }
            let reads: [Int]
            switch op.code {
            case TFLiteOperator.conv2D, TFLiteOperator.depthwiseConv2D:
                guard op.inputs.count == 2 || op.inputs.count == 3 else { throw op.error("expects 2 or 3 inputs") }
                reads = [op.inputs[0]]
            case TFLiteOperator.add, TFLiteOperator.prelu:
                guard op.inputs.count == 2 else { throw op.error("expects 2 inputs") }
                reads = op.inputs
            case TFLiteOperator.concatenation:
                guard !op.inputs.isEmpty else { throw op.error("has no inputs") }
                reads = op.inputs
            case TFLiteOperator.pad, TFLiteOperator.reshape:
                guard op.inputs.count >= 1, op.inputs.count <= 2 else { throw op.error("expects 1 or 2 inputs") }
                reads = [op.inputs[0]]
            case TFLiteOperator.maxPool2D, TFLiteOperator.relu, TFLiteOperator.relu6, TFLiteOperator.reluN1To1:
                guard op.inputs.count == 1 else { throw op.error("expects 1 input") }
                reads = op.inputs
            case TFLiteOperator.custom:
                throw op.error("custom operator '\(op.customName ?? "?")' is not supported")
            default:
                throw op.error("operator is not supported")
            }
            for t in reads {
                guard t >= 0 else { throw op.error("a required input is missing") }
                guard tensors[t].type == TFLiteTensorInfo.float32 else {
                    throw op.error("input \(tensors[t].label) must be FLOAT32")
                }
                guard written[t] || isFloatConstant(t) else {
                    throw op.error("reads \(tensors[t].label) before any operator writes it")
                }
                guard tensors[t].elementCount > 0 else { throw op.error("input \(tensors[t].label) is empty") }
            }
            guard tensors[out].elementCount > 0 else { throw op.error("output \(tensors[out].label) is empty") }
            written[out] = true
            steps.append((op, reads))
        }
        for t in graph.outputs where !written[t] && !isFloatConstant(t) {
            throw TFLiteError("graph output \(tensors[t].label) is never written")
        }
    }

    // MARK: - Memory

    /// Places every arena tensor at the lowest offset free for its whole lifetime; returns the arena size.
    private mutating func assignOffsets() throws(TFLiteError) -> Int {
        let never = Int.max
        var first = [Int](repeating: never, count: tensors.count)
        var last = [Int](repeating: -1, count: tensors.count)
        for t in graph.inputs { first[t] = -1; last[t] = Swift.max(last[t], -1) }
        for (i, step) in steps.enumerated() {
            for t in step.reads {
                if isFloatConstant(t) && first[t] == never { first[t] = -1; last[t] = never }
                last[t] = Swift.max(last[t], i)
            }
            first[step.op.outputs[0]] = i
            last[step.op.outputs[0]] = Swift.max(last[step.op.outputs[0]], i)
        }
        for t in graph.outputs {
            if first[t] == never { first[t] = -1 }
            last[t] = never
        }
        let placed = (0..<tensors.count).filter { first[$0] != never }
            .sorted { tensors[$0].elementCount != tensors[$1].elementCount
                ? tensors[$0].elementCount > tensors[$1].elementCount : $0 < $1 }
        var done: [(start: Int, end: Int, first: Int, last: Int)] = []
        var top = 0
        for t in placed {
            let size = (tensors[t].elementCount + 15) / 16 * 16
            let busy = done.filter { $0.first <= last[t] && first[t] <= $0.last }.sorted { $0.start < $1.start }
            var offset = 0
            for block in busy {
                if offset + size <= block.start { break }
                offset = Swift.max(offset, block.end)
            }
            offsets[t] = offset
            done.append((offset, offset + size, first[t], last[t]))
            top = Swift.max(top, offset + size)
            guard top <= TFLiteProgram.maxArena else {
                throw TFLiteError("the model's tensors need more than \(TFLiteProgram.maxArena) floats of memory")
            }
        }
        return top + TFLiteProgram.slack
    }

    // MARK: - Layers

    private func build(arenaCount: Int) throws(TFLiteError) -> TFLiteProgram {
        var layers: [TFLiteLayer] = []
        var scratch = 1
        var macs = 0
        var weights = 0
        for step in steps {
            let layer = try layer(for: step.op)
            macs += tensors[step.op.outputs[0]].elementCount
            switch layer {
            case .conv(let conv):
                scratch = Swift.max(scratch, conv.scratchCount)
                macs += conv.macs
                weights += conv.weightCount
            case .depthwise(let depthwise):
                macs += depthwise.macs
                weights += depthwise.weightCount
            case .maxPool(let pool):
                macs += tensors[step.op.outputs[0]].elementCount * pool.rows.kernel * pool.columns.kernel
            default:
                break
            }
            guard macs <= TFLiteProgram.maxMACs, scratch <= TFLiteProgram.maxArena, weights <= TFLiteProgram.maxArena else {
                throw step.op.error("the model needs too much computation, scratch memory or weight memory")
            }
            layers.append(layer)
        }
        var constants: [(offset: Int, values: [Float])] = []
        for t in 0..<tensors.count where offsets[t] >= 0 {
            if let values = tensors[t].floats, tensors[t].type == TFLiteTensorInfo.float32 {
                constants.append((offsets[t], values))
            }
        }
        return TFLiteProgram(
            layers: layers,
            inputs: graph.inputs.map { (offsets[$0], tensors[$0].shape) },
            outputs: graph.outputs.map { (offsets[$0], tensors[$0].shape) },
            constants: constants, arenaCount: arenaCount, scratchCount: scratch, macs: macs)
    }

    private func layer(for op: TFLiteOperator) throws(TFLiteError) -> TFLiteLayer {
        let out = op.outputs[0]
        let output = tensors[out]
        let x = tensors[op.inputs[0]]
        switch op.code {
        case TFLiteOperator.conv2D, TFLiteOperator.depthwiseConv2D:
            return try convolution(op, x: x, output: output)
        case TFLiteOperator.maxPool2D:
            guard x.shape.count == 4 else { throw op.error("input \(x.label) must have rank 4") }
            let options = try op.options(ofType: 5, "Pool2DOptions")
            guard let options else { throw op.error("Pool2DOptions are missing") }
            let same = try padding(options, field: 0, op)
            let rows = try NeuralWindow(input: x.shape[1], kernel: Int(options.int32(4, default: 0)),
                                        stride: Int(options.int32(2, default: 0)), dilation: 1, same: same, for: op)
            let columns = try NeuralWindow(input: x.shape[2], kernel: Int(options.int32(3, default: 0)),
                                           stride: Int(options.int32(1, default: 0)), dilation: 1, same: same, for: op)
            try expect(output, [x.shape[0], rows.output, columns.output, x.shape[3]], op)
            return .maxPool(TFLitePoolLayer(
                input: offsets[op.inputs[0]], output: offsets[out], batch: x.shape[0], channels: x.shape[3],
                rows: rows, columns: columns,
                activation: try NeuralActivation(code: options.int8(5, default: 0), for: op)))
        case TFLiteOperator.add, TFLiteOperator.prelu:
            return try binary(op, output: output)
        case TFLiteOperator.relu, TFLiteOperator.relu6, TFLiteOperator.reluN1To1:
            try expect(output, x.shape, op)
            let activation: NeuralActivation = op.code == TFLiteOperator.relu ? .relu
                : op.code == TFLiteOperator.relu6 ? .relu6 : .reluN1To1
            return .clamp(TFLiteClampLayer(input: offsets[op.inputs[0]], output: offsets[out],
                                           count: x.elementCount, activation: activation))
        case TFLiteOperator.reshape:
            guard output.elementCount == x.elementCount else {
                throw op.error("cannot reshape \(x.label) to \(output.label)")
            }
            return .copy(TFLiteCopyLayer(input: offsets[op.inputs[0]], output: offsets[out], count: x.elementCount))
        case TFLiteOperator.pad:
            return try pad(op, x: x, output: output)
        default:
            return try concatenation(op, output: output)
        }
    }

    private func expect(_ output: TFLiteTensorInfo, _ shape: [Int], _ op: TFLiteOperator) throws(TFLiteError) {
        guard output.shape == shape else { throw op.error("output \(output.label) should have shape \(shape)") }
    }

    private func padding(_ options: TFLiteFlatTable, field: Int, _ op: TFLiteOperator) throws(TFLiteError) -> Bool {
        switch try options.uint8(field, default: 0) {
        case 0: return true
        case 1: return false
        case let other: throw op.error("unknown padding \(other)")
        }
    }

    private func constant(_ index: Int, _ what: String, count: Int, _ op: TFLiteOperator) throws(TFLiteError) -> [Float] {
        guard index >= 0, index < tensors.count, tensors[index].type == TFLiteTensorInfo.float32,
              let values = tensors[index].floats else {
            throw op.error("\(what) must be a constant FLOAT32 tensor")
        }
        guard values.count == count else { throw op.error("\(what) \(tensors[index].label) should have \(count) values") }
        return values
    }

    private func convolution(_ op: TFLiteOperator, x: TFLiteTensorInfo, output: TFLiteTensorInfo) throws(TFLiteError) -> TFLiteLayer {
        let depthwise = op.code == TFLiteOperator.depthwiseConv2D
        guard x.shape.count == 4 else { throw op.error("input \(x.label) must have rank 4") }
        let filterIndex = op.inputs[1]
        guard filterIndex >= 0, tensors[filterIndex].shape.count == 4 else { throw op.error("filter must have rank 4") }
        let f = tensors[filterIndex].shape
        let cin = x.shape[3]
        let cout = f[3 - (depthwise ? 0 : 3)]
        if depthwise {
            guard f[0] == 1, cin > 0, cout % cin == 0 else {
                throw op.error("filter \(f) does not fit input channels \(cin)")
            }
        } else {
            guard f[3] == cin else { throw op.error("filter \(f) does not fit input channels \(cin)") }
        }
        let filter = try constant(filterIndex, "filter", count: tensors[filterIndex].elementCount, op)
        var bias: [Float]?
        if op.inputs.count == 3, op.inputs[2] >= 0 { bias = try constant(op.inputs[2], "bias", count: cout, op) }
        let options = depthwise ? try op.options(ofType: 2, "DepthwiseConv2DOptions")
            : try op.options(ofType: 1, "Conv2DOptions")
        guard let options else { throw op.error("convolution options are missing") }
        let same = try padding(options, field: 0, op)
        let activationField = depthwise ? 4 : 3
        let dilationField = depthwise ? 5 : 4
        let activation = try NeuralActivation(code: options.int8(activationField, default: 0), for: op)
        let rows = try NeuralWindow(input: x.shape[1], kernel: f[1], stride: Int(options.int32(2, default: 0)),
                                    dilation: Int(options.int32(dilationField + 1, default: 1)), same: same, for: op)
        let columns = try NeuralWindow(input: x.shape[2], kernel: f[2], stride: Int(options.int32(1, default: 0)),
                                       dilation: Int(options.int32(dilationField, default: 1)), same: same, for: op)
        try expect(output, [x.shape[0], rows.output, columns.output, cout], op)
        let input = offsets[op.inputs[0]], out = offsets[op.outputs[0]]
        if depthwise {
            return .depthwise(TFLiteDepthwiseLayer(
                input: input, output: out, batch: x.shape[0], inChannels: cin, outChannels: cout, rows: rows,
                columns: columns, filter: filter, biasValues: bias, activation: activation))
        }
        return .conv(TFLiteConvLayer(
            input: input, output: out, batch: x.shape[0], inChannels: cin, outChannels: cout, rows: rows,
            columns: columns, filter: filter, biasValues: bias, activation: activation))
    }

    private func binary(_ op: TFLiteOperator, output: TFLiteTensorInfo) throws(TFLiteError) -> TFLiteLayer {
        let isPRelu = op.code == TFLiteOperator.prelu
        var a = op.inputs[0], b = op.inputs[1]
        var activation = NeuralActivation.none
        if !isPRelu, let options = try op.options(ofType: 11, "AddOptions") {
            activation = try NeuralActivation(code: options.int8(0, default: 0), for: op)
        }
        guard let shape = TFLiteBroadcast.shape(tensors[a].shape, tensors[b].shape) else {
            throw op.error("cannot broadcast \(tensors[a].label) with \(tensors[b].label)")
        }
        try expect(output, shape, op)
        if !isPRelu, tensors[a].shape != shape { swap(&a, &b) }
        func repeatsAlongLastAxes(_ small: [Int], _ big: [Int]) -> Bool {
            let trimmed = Array(small.drop { $0 == 1 })
            return trimmed.count <= big.count && Array(big.suffix(trimmed.count)) == trimmed
        }
        let fast = tensors[a].shape == shape && repeatsAlongLastAxes(tensors[b].shape, shape)
        guard fast || shape.count <= 4 else { throw op.error("broadcasting above rank 4 is not supported") }
        return .binary(TFLiteBinaryLayer(
            a: offsets[a], b: offsets[b], output: offsets[op.outputs[0]], count: output.elementCount,
            isPRelu: isPRelu, period: fast ? tensors[b].elementCount : 0,
            broadcast: fast ? nil : TFLiteBroadcast(tensors[a].shape, tensors[b].shape), activation: activation))
    }

    private func pad(_ op: TFLiteOperator, x: TFLiteTensorInfo, output: TFLiteTensorInfo) throws(TFLiteError) -> TFLiteLayer {
        let rank = x.shape.count
        guard rank <= 4 else { throw op.error("padding tensors of rank \(rank) is not supported") }
        guard op.inputs.count == 2, op.inputs[1] >= 0, let paddings = tensors[op.inputs[1]].ints,
              tensors[op.inputs[1]].shape == [rank, 2] else {
            throw op.error("paddings must be a constant INT32 tensor of shape [\(rank), 2]")
        }
        var before: [Int] = [], shape: [Int] = []
        for i in 0..<rank {
            let low = Int(paddings[2 * i]), high = Int(paddings[2 * i + 1])
            guard low >= 0, high >= 0, low <= 1 << 20, high <= 1 << 20 else {
                throw op.error("padding \(low), \(high) out of range")
            }
            before.append(low)
            shape.append(x.shape[i] + low + high)
        }
        try expect(output, shape, op)
        let lead = [Int](repeating: 1, count: 4 - rank), zeros = [Int](repeating: 0, count: 4 - rank)
        return .pad(TFLitePadLayer(input: offsets[op.inputs[0]], output: offsets[op.outputs[0]],
                                   inDims: lead + x.shape, outDims: lead + shape, before: zeros + before))
    }

    private func concatenation(_ op: TFLiteOperator, output: TFLiteTensorInfo) throws(TFLiteError) -> TFLiteLayer {
        let options = try op.options(ofType: 10, "ConcatenationOptions")
        let rank = output.shape.count
        var axis = Int(try options?.int32(0, default: 0) ?? 0)
        if axis < 0 { axis += rank }
        guard axis >= 0, axis < rank else { throw op.error("axis \(axis) out of range for rank \(rank)") }
        let activation = try NeuralActivation(code: options?.int8(1, default: 0) ?? 0, for: op)
        var extent = 0
        var parts: [(offset: Int, chunk: Int)] = []
        let inner = output.shape[(axis + 1)...].reduce(1, *)
        for t in op.inputs {
            let s = tensors[t].shape
            guard s.count == rank, s[..<axis] == output.shape[..<axis], s[(axis + 1)...] == output.shape[(axis + 1)...] else {
                throw op.error("input \(tensors[t].label) does not fit output \(output.label) on axis \(axis)")
            }
            extent += s[axis]
            parts.append((offsets[t], s[axis] * inner))
        }
        guard extent == output.shape[axis] else { throw op.error("inputs add up to \(extent) along axis \(axis)") }
        return .concat(TFLiteConcatLayer(parts: parts, output: offsets[op.outputs[0]],
                                         outer: output.shape[..<axis].reduce(1, *), count: output.elementCount,
                                         activation: activation))
    }
}
