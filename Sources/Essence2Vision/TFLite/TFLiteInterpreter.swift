import Essence2Runtime

/// Runs a `TFLiteModel`. Owns the activation arena and scratch memory, so reuse one interpreter for many runs;
/// not thread-safe: one interpreter per thread (it is a value, so it can be moved to another thread; the model
/// itself can be shared).
package struct TFLiteInterpreter: Sendable {
    /// The model this interpreter runs.
    package let model: TFLiteModel
    private var arena: [Float]
    private var scratch: [Float]

    /// Allocates the memory `model` needs and loads its constant activations.
    package init(model: TFLiteModel) throws(TFLiteError) {
        self.model = model
        let program = model.program
        guard program.arenaCount <= TFLiteProgram.maxArena + TFLiteProgram.slack,
              program.scratchCount <= TFLiteProgram.maxArena else {
            throw TFLiteError("the model needs too much memory")
        }
        arena = [Float](repeating: 0, count: program.arenaCount)
        scratch = [Float](repeating: 0, count: Swift.max(program.scratchCount, 1))
        for constant in program.constants {
            arena.replaceSubrange(constant.offset..<(constant.offset + constant.values.count), with: constant.values)
        }
    }

    /// Runs the model on `inputs` (one tensor per model input, shapes exactly `model.inputShapes`) and returns
    /// its outputs in model order.
    package mutating func invoke(_ inputs: [TFLiteTensor]) throws(TFLiteError) -> [TFLiteTensor] {
        let program = model.program
        guard inputs.count == program.inputs.count else {
            throw TFLiteError("the model takes \(program.inputs.count) inputs, got \(inputs.count)")
        }
        for (i, input) in inputs.enumerated() {
            let expected = program.inputs[i].shape
            guard input.shape == expected, input.values.count == expected.reduce(1, *) else {
                throw TFLiteError("input \(i) should have shape \(expected) (\(expected.reduce(1, *)) values), "
                                  + "got \(input.shape) with \(input.values.count) values")
            }
            let offset = program.inputs[i].offset
            arena.replaceSubrange(offset..<(offset + input.values.count), with: input.values)
        }
        run()
        return outputs()
    }

    /// Runs a single-input model on `values` (row-major, `model.inputShapes[0]`), avoiding a copy into a tensor.
    package mutating func invoke(_ values: UnsafeBufferPointer<Float>) throws(TFLiteError) -> [TFLiteTensor] {
        let program = model.program
        guard program.inputs.count == 1 else {
            throw TFLiteError("the model takes \(program.inputs.count) inputs, not 1")
        }
        let expected = program.inputs[0].shape
        guard values.count == expected.reduce(1, *), let source = values.baseAddress else {
            throw TFLiteError("input should have shape \(expected) (\(expected.reduce(1, *)) values), got \(values.count)")
        }
        let offset = program.inputs[0].offset
        arena.withUnsafeMutableBufferPointer { (buffer: inout UnsafeMutableBufferPointer<Float>) in
            (buffer.baseAddress! + offset).update(from: source, count: values.count)
        }
        run()
        return outputs()
    }

    private mutating func run() {
        let layers = model.program.layers
        arena.withUnsafeMutableBufferPointer { (a: inout UnsafeMutableBufferPointer<Float>) in
            scratch.withUnsafeMutableBufferPointer { (s: inout UnsafeMutableBufferPointer<Float>) in
                let base = a.baseAddress!, work = s.baseAddress!
                for layer in layers { layer.run(base, work) }
            }
        }
    }

    private func outputs() -> [TFLiteTensor] {
        model.program.outputs.map { output in
            let count = output.shape.reduce(1, *)
            return TFLiteTensor(shape: output.shape, values: Array(arena[output.offset..<(output.offset + count)]))
        }
    }
}
