import Essence2Runtime

/// A prepared RESHAPE: the values are copied unchanged (only the declared shape differs).
struct TFLiteCopyLayer: Sendable {
    var input: Int
    var output: Int
    var count: Int

    func run(_ arena: UnsafeMutablePointer<Float>) {
        (arena + output).update(from: arena + input, count: count)
    }
}
