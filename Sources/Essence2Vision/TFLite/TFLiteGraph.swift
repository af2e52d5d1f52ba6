import Essence2Runtime

/// The first subgraph of a `.tflite` file, parsed and bounds-checked: tensors (with constant data decoded),
/// operators, and the graph's input and output tensor indices.
struct TFLiteGraph: Sendable {
    var tensors: [TFLiteTensorInfo]
    var operators: [TFLiteOperator]
    var inputs: [Int]
    var outputs: [Int]

    /// Most tensors and operators accepted in a graph.
    static let maxTensors = 100_000
    static let maxOperators = 10_000

    init(bytes: [UInt8]) throws(TFLiteError) {
        let file = TFLiteFlatBuffer(bytes: bytes)
        let model = try file.root()

        var codes: [(code: Int, custom: String?)] = []
        for (i, table) in try model.tableVector(1, "operator_codes").enumerated() {
            let deprecated = Int(try table.int8(0, default: 0))
            let builtin = Int(try table.int32(3, default: 0))
            let custom = try table.string(1, "custom_code")
            guard deprecated >= 0, builtin >= 0 else { throw TFLiteError("operator code \(i) is negative") }
            codes.append((Swift.max(deprecated, builtin), custom))
        }

        var buffers: [(start: Int, count: Int)] = []
        for (i, table) in try model.tableVector(4, "buffers").enumerated() {
            let externalOffset = try table.uint64(1, default: 0), externalSize = try table.uint64(2, default: 0)
            if externalOffset != 0 || externalSize != 0 {
                throw TFLiteError("buffer \(i) keeps its data outside the FlatBuffer, which is not supported")
            }
            buffers.append(try table.vector(0, elementSize: 1, "data") ?? (0, 0))
        }

        let subgraphs = try model.tableVector(2, "subgraphs")
        guard let graph = subgraphs.first else { throw TFLiteError("model has no subgraph") }

        let tensorTables = try graph.tableVector(0, "tensors")
        guard tensorTables.count <= Self.maxTensors else {
            throw TFLiteError("the graph has \(tensorTables.count) tensors (at most \(Self.maxTensors))")
        }
        var tensors: [TFLiteTensorInfo] = []
        for (i, table) in tensorTables.enumerated() {
            tensors.append(try Self.tensor(i, table, buffers: buffers, file: file))
        }
        func tensorIndices(_ raw: [Int32], _ what: String, optional: Bool) throws(TFLiteError) -> [Int] {
            var out: [Int] = []
            for value in raw {
                let index = Int(value)
                guard (optional && index == -1) || (index >= 0 && index < tensors.count) else {
                    throw TFLiteError("\(what) refers to tensor \(index), but the graph has \(tensors.count)")
                }
                out.append(index)
            }
            return out
        }
        self.tensors = tensors
        inputs = try tensorIndices(graph.int32Vector(1, "inputs"), "graph inputs", optional: false)
        outputs = try tensorIndices(graph.int32Vector(2, "outputs"), "graph outputs", optional: false)

        let operatorTables = try graph.tableVector(3, "operators")
        guard operatorTables.count <= Self.maxOperators else {
            throw TFLiteError("the graph has \(operatorTables.count) operators (at most \(Self.maxOperators))")
        }
        var operators: [TFLiteOperator] = []
        for (i, table) in operatorTables.enumerated() {
            let opcode = Int(try table.uint32(0, default: 0))
            guard opcode < codes.count else {
                throw TFLiteError("operator \(i) uses operator code \(opcode), but the model has \(codes.count)")
            }
            let op = TFLiteOperator(
                index: i, code: codes[opcode].code, customName: codes[opcode].custom,
                inputs: try tensorIndices(table.int32Vector(1, "inputs"), "operator \(i) inputs", optional: true),
                outputs: try tensorIndices(table.int32Vector(2, "outputs"), "operator \(i) outputs", optional: false),
                optionsType: try table.uint8(3, default: 0),
                options: try table.table(4, "builtin_options"))
            operators.append(op)
        }
        self.operators = operators
    }

    private static func tensor(_ i: Int, _ table: TFLiteFlatTable, buffers: [(start: Int, count: Int)],
                               file: TFLiteFlatBuffer) throws(TFLiteError) -> TFLiteTensorInfo {
        let name = try table.string(3, "name") ?? "tensor\(i)"
        let rawShape = try table.int32Vector(0, "shape")
        guard rawShape.count <= 8 else { throw TFLiteError("tensor \(i) '\(name)' has rank \(rawShape.count) (at most 8)") }
        let shape = rawShape.map { Int($0) }
        guard let count = TFLiteTensorInfo.elementCount(shape) else {
            throw TFLiteError("tensor \(i) '\(name)' has an invalid or too large shape \(shape)")
        }
        let type = try table.int8(1, default: 0)
        guard type == TFLiteTensorInfo.float32 || type == TFLiteTensorInfo.float16 || type == TFLiteTensorInfo.int32 else {
            throw TFLiteError("tensor \(i) '\(name)' has element type \(type); only FLOAT32, FLOAT16 and INT32 are supported")
        }
        if try table.field(6, size: 4) != nil {
            throw TFLiteError("tensor \(i) '\(name)' is sparse, which is not supported")
        }
        var info = TFLiteTensorInfo(name: name, shape: shape, type: type, elementCount: count)
        let bufferIndex = Int(try table.uint32(2, default: 0))
        guard bufferIndex < buffers.count || (bufferIndex == 0 && buffers.isEmpty) else {
            throw TFLiteError("tensor \(i) '\(name)' refers to buffer \(bufferIndex), but the model has \(buffers.count)")
        }
        guard bufferIndex < buffers.count, buffers[bufferIndex].count > 0 else { return info }
        let (start, size) = buffers[bufferIndex]
        let bytes = file.bytes
        let width = type == TFLiteTensorInfo.float16 ? 2 : 4
        guard size == count * width else {
            throw TFLiteError("tensor \(i) '\(name)' \(shape) needs \(count * width) bytes of data, its buffer has \(size)")
        }
        func word(_ k: Int) -> UInt32 {
            let p = start + 4 * k
            return UInt32(bytes[p]) | UInt32(bytes[p + 1]) << 8 | UInt32(bytes[p + 2]) << 16 | UInt32(bytes[p + 3]) << 24
        }
        switch type {
        case TFLiteTensorInfo.float32:
            info.floats = (0..<count).map { Float(bitPattern: word($0)) }
        case TFLiteTensorInfo.float16:
            info.floats = (0..<count).map {
                TFLiteTensorInfo.floatFromHalf(UInt16(bytes[start + 2 * $0]) | UInt16(bytes[start + 2 * $0 + 1]) << 8)
            }
        default:
            info.ints = (0..<count).map { Int32(bitPattern: word($0)) }
        }
        return info
    }
}
