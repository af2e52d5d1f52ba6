@testable import Essence2Runtime
@testable import Essence2Vision
@testable import Essence2Authoring

/// Writes small `.tflite` FlatBuffers for tests: tensors (optionally constant), operators with option tables,
/// graph inputs and outputs. Tables are laid out parent first, children after, so every offset points forward.
struct TFLiteModelBuilder {
    /// A FlatBuffer value: a table (fields by index, nil = absent), a vector of tables, of int32 or of bytes,
    /// or a string.
    indirect enum Node {
        case table([Field?])
        case tables([Node])
        case ints([Int32])
        case bytes([UInt8])
        case string(String)
    }

    enum Field {
        case u8(UInt8)
        case i32(Int32)
        case node(Node)
    }

    var tensors: [(shape: [Int], type: Int8, data: [UInt8]?)] = []
    var operators: [(code: Int, custom: String?, inputs: [Int], outputs: [Int], optionsType: UInt8, options: [Field?]?)] = []
    var inputs: [Int] = []
    var outputs: [Int] = []

    // MARK: Tensors

    mutating func tensor(_ shape: [Int]) -> Int {
        tensors.append((shape, TFLiteTensorInfo.float32, nil))
        return tensors.count - 1
    }

    mutating func tensor(_ shape: [Int], floats: [Float]) -> Int {
        tensors.append((shape, TFLiteTensorInfo.float32, floats.flatMap { Self.le($0.bitPattern) }))
        return tensors.count - 1
    }

    mutating func tensor(_ shape: [Int], halves: [UInt16]) -> Int {
        tensors.append((shape, TFLiteTensorInfo.float16, halves.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }))
        return tensors.count - 1
    }

    mutating func tensor(_ shape: [Int], ints: [Int32]) -> Int {
        tensors.append((shape, TFLiteTensorInfo.int32, ints.flatMap { Self.le(UInt32(bitPattern: $0)) }))
        return tensors.count - 1
    }

    // MARK: Operators

    mutating func op(_ code: Int, _ inputs: [Int], _ outputs: [Int], optionsType: UInt8 = 0, options: [Field?]? = nil,
                     custom: String? = nil) {
        operators.append((code, custom, inputs, outputs, optionsType, options))
    }

    static func convOptions(same: Bool, stride: Int, activation: Int8 = 0, dilation: Int = 1) -> [Field?] {
        [.u8(same ? 0 : 1), .i32(Int32(stride)), .i32(Int32(stride)), .u8(UInt8(activation)),
         .i32(Int32(dilation)), .i32(Int32(dilation))]
    }

    static func depthwiseOptions(same: Bool, stride: Int, multiplier: Int = 1, activation: Int8 = 0) -> [Field?] {
        [.u8(same ? 0 : 1), .i32(Int32(stride)), .i32(Int32(stride)), .i32(Int32(multiplier)), .u8(UInt8(activation))]
    }

    static func poolOptions(same: Bool, stride: Int, filter: Int) -> [Field?] {
        [.u8(same ? 0 : 1), .i32(Int32(stride)), .i32(Int32(stride)), .i32(Int32(filter)), .i32(Int32(filter)), .u8(0)]
    }

    // MARK: Serialisation

    func bytes() -> [UInt8] {
        var codes: [(Int, String?)] = []
        for op in operators where !codes.contains(where: { $0.0 == op.code && $0.1 == op.custom }) {
            codes.append((op.code, op.custom))
        }
        let codeTables: [Node] = codes.map { code, custom in
            .table([.u8(UInt8(Swift.min(code, 127))), custom.map { .node(.string($0)) }, .i32(1), .i32(Int32(code))])
        }
        var buffers: [Node] = [.table([])]
        var tensorTables: [Node] = []
        for (i, t) in tensors.enumerated() {
            var buffer: Int32 = 0
            if let data = t.data {
                buffers.append(.table([.node(.bytes(data))]))
                buffer = Int32(buffers.count - 1)
            }
            tensorTables.append(.table([.node(.ints(t.shape.map { Int32($0) })), .u8(UInt8(bitPattern: t.type)),
                                        .i32(buffer), .node(.string("t\(i)"))]))
        }
        let operatorTables: [Node] = operators.map { op in
            let index = codes.firstIndex { $0.0 == op.code && $0.1 == op.custom }!
            return .table([.i32(Int32(index)), .node(.ints(op.inputs.map { Int32($0) })),
                           .node(.ints(op.outputs.map { Int32($0) })), .u8(op.optionsType),
                           op.options.map { .node(.table($0)) }])
        }
        let subgraph = Node.table([.node(.tables(tensorTables)), .node(.ints(inputs.map { Int32($0) })),
                                   .node(.ints(outputs.map { Int32($0) })), .node(.tables(operatorTables)),
                                   .node(.string("main"))])
        let model = Node.table([.i32(3), .node(.tables(codeTables)), .node(.tables([subgraph])),
                                .node(.string("test")), .node(.tables(buffers))])
        var out: [UInt8] = [0, 0, 0, 0, 0x54, 0x46, 0x4C, 0x33]
        let root = Self.write(model, &out)
        Self.patch(&out, at: 0, UInt32(root))
        return out
    }

    static func le(_ v: UInt32) -> [UInt8] {
        [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]
    }

    private static func patch(_ out: inout [UInt8], at position: Int, _ value: UInt32) {
        out.replaceSubrange(position..<(position + 4), with: le(value))
    }

    private static func align(_ out: inout [UInt8]) {
        while out.count % 4 != 0 { out.append(0) }
    }

    /// Appends `node` (and everything below it) and returns the position an offset to it must point at.
    private static func write(_ node: Node, _ out: inout [UInt8]) -> Int {
        align(&out)
        switch node {
        case .table(let fields):
            let vtable = out.count
            let vtableSize = 4 + 2 * fields.count
            out += [UInt8(vtableSize & 0xFF), UInt8(vtableSize >> 8)]
            let inline = 4 + 4 * fields.count
            out += [UInt8(inline & 0xFF), UInt8(inline >> 8)]
            for (i, field) in fields.enumerated() {
                let offset = field == nil ? 0 : 4 + 4 * i
                out += [UInt8(offset & 0xFF), UInt8(offset >> 8)]
            }
            align(&out)
            let table = out.count
            out += le(UInt32(bitPattern: Int32(table - vtable)))
            out += [UInt8](repeating: 0, count: 4 * fields.count)
            var children: [(Int, Node)] = []
            for (i, field) in fields.enumerated() {
                let slot = table + 4 + 4 * i
                switch field {
                case .u8(let v): out[slot] = v
                case .i32(let v): patch(&out, at: slot, UInt32(bitPattern: v))
                case .node(let child): children.append((slot, child))
                case nil: break
                }
            }
            for (slot, child) in children { patch(&out, at: slot, UInt32(write(child, &out) - slot)) }
            return table
        case .tables(let items):
            let start = out.count
            out += le(UInt32(items.count))
            out += [UInt8](repeating: 0, count: 4 * items.count)
            for (i, item) in items.enumerated() {
                let slot = start + 4 + 4 * i
                patch(&out, at: slot, UInt32(write(item, &out) - slot))
            }
            return start
        case .ints(let values):
            let start = out.count
            out += le(UInt32(values.count))
            for v in values { out += le(UInt32(bitPattern: v)) }
            return start
        case .bytes(let values):
            let start = out.count
            out += le(UInt32(values.count)) + values
            return start
        case .string(let text):
            let start = out.count
            out += le(UInt32(text.utf8.count)) + Array(text.utf8) + [0]
            return start
        }
    }

    /// Parses the model and runs it once on `values` (one array per graph input, shapes as declared).
    func run(_ values: [[Float]]) throws -> [TFLiteTensor] {
        var interpreter = try TFLiteInterpreter(model: TFLiteModel(bytes: bytes()))
        let inputs = zip(interpreter.model.inputShapes, values).map { TFLiteTensor(shape: $0, values: $1) }
        return try interpreter.invoke(inputs)
    }
}
