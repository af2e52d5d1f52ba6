import Essence2Vision
import FuzzSupport

/// fuzz-tflite: the TensorFlow Lite reader (`TFLiteModel`: the FlatBuffer, its tables and vectors, tensor
/// shapes and buffers, operators and their options, the planner) and, for a model that loads and is small, the
/// interpreter once on a constant input. Every input must load or throw a `TFLiteError`, and a loaded model
/// must run or throw one.
enum TFLiteHarness {
    /// Models above this many multiply-adds are loaded but not run (the seeds need a few hundred).
    static let runLimit = 1 << 16
    static let loaded = FuzzCounter("tflite models loaded")
    static let ran = FuzzCounter("tflite models run")

    static func run(_ bytes: [UInt8]) {
        guard let model = try? TFLiteModel(bytes: bytes) else { return }
        loaded.add()
        let shapes = model.inputShapes
        let elements = shapes.reduce(0) { total, shape in total + shape.reduce(1) { $0 * max($1, 0) } }
        guard model.operationCount <= runLimit, elements <= runLimit, var interpreter = try? TFLiteInterpreter(model: model)
        else { return }
        let inputs = shapes.map { TFLiteTensor(shape: $0, values: .init(repeating: 0.5, count: $0.reduce(1, *))) }
        if (try? interpreter.invoke(inputs)) != nil { ran.add() }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    TFLiteHarness.run(data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
    return 0
}
