/// A weights file of one of our own networks, the E2NW format (docs/architecture.md, "Weights files"; written by
/// tools/lib/e2nw.py): a network kind and named tensors. All numbers little-endian:
///
///     "E2NW"                      magic, 4 bytes
///     UInt32 version              1
///     UInt32 n, n bytes           the network kind, ASCII (e.g. "essence2-lipsync", "essence2-character-points")
///     UInt32 count                tensors, 0 ... 4096, then per tensor:
///       UInt32 n, n bytes         its name, UTF-8, 1 ... 128 bytes, unique
///       UInt32 element            1 float32, 2 float16, 3 int32
///       UInt32 rank               0 ... 6, then rank UInt32 extents (each at least 1)
///       values                    the product of the extents, row-major, element-sized each
///     nothing after the last tensor
///
/// Reading checks everything before it allocates: a file cut short, extents out of range or larger than the bytes
/// left, a repeated name, an unknown element type and any float that is not finite throw `NeuralWeightsError`;
/// nothing traps. A network reads its tensors by name with `floats(_:shape:)` and `ints(_:count:)`, which throw
/// when one is missing or shaped otherwise.
package struct NeuralWeights: Sendable, Equatable {
    package static let magic: [UInt8] = Array("E2NW".utf8)
    package static let version: UInt32 = 1
    /// Most tensors in a file.
    package static let maxTensors = 4096
    /// Longest tensor name and network kind, in bytes.
    package static let maxNameLength = 128
    /// Highest rank.
    package static let maxRank = 6
    /// Most values in one tensor.
    package static let maxValues = 1 << 28

    /// The network kind the file says it holds.
    package let kind: String
    /// The tensors in file order.
    package let names: [String]
    package let tensors: [String: NeuralTensor]

    /// Weights of `kind` with `tensors`, in their order (names must be unique).
    package init(kind: String, tensors: [(String, NeuralTensor)]) {
        self.kind = kind
        names = tensors.map(\.0)
        self.tensors = Dictionary(tensors, uniquingKeysWith: { first, _ in first })
        precondition(self.tensors.count == names.count, "weights: tensor names repeat")
    }

    /// Throws unless the file holds a network of `kind`.
    package func expect(kind expected: String) throws(NeuralWeightsError) {
        guard kind == expected else {
            throw NeuralWeightsError("the weights file holds a '\(kind)' network, not '\(expected)'")
        }
    }

    /// The tensor `name`, or a thrown error naming it.
    package func tensor(_ name: String) throws(NeuralWeightsError) -> NeuralTensor {
        guard let tensor = tensors[name] else { throw NeuralWeightsError("tensor '\(name)' is missing") }
        return tensor
    }

    /// The float values of tensor `name`, which must have exactly `shape`.
    package func floats(_ name: String, shape: [Int]) throws(NeuralWeightsError) -> [Float] {
        let tensor = try tensor(name)
        guard tensor.element != .int32 else { throw NeuralWeightsError("tensor '\(name)' holds integers, not floats") }
        guard tensor.shape == shape else {
            throw NeuralWeightsError("tensor '\(name)' has shape \(tensor.shape), not \(shape)")
        }
        return tensor.floats
    }

    /// The integer values of tensor `name`, which must hold `count` values (any shape; nil: any number).
    package func ints(_ name: String, count: Int? = nil) throws(NeuralWeightsError) -> [Int] {
        let tensor = try tensor(name)
        guard tensor.element == .int32 else { throw NeuralWeightsError("tensor '\(name)' holds floats, not integers") }
        if let count, tensor.count != count {
            throw NeuralWeightsError("tensor '\(name)' has \(tensor.count) values, not \(count)")
        }
        return tensor.ints.map(Int.init)
    }

    /// The one integer of tensor `name`.
    package func int(_ name: String) throws(NeuralWeightsError) -> Int {
        try ints(name, count: 1)[0]
    }
}
