import Essence2Runtime

/// A validated execution plan: layers in graph order over one float arena whose offsets were assigned from
/// tensor lifetimes, so every read and write of `run` stays inside `arenaCount` floats.
struct TFLiteProgram: Sendable {
    /// Largest arena, scratch, and total of packed weights accepted, each in floats (64 MiB).
    static let maxArena = 1 << 24
    /// Most multiply-accumulates per run accepted.
    static let maxMACs = 1 << 32
    /// Floats of slack after the last tensor, so 8-wide loads of a partial channel block stay in bounds.
    static let slack = 16

    var layers: [TFLiteLayer]
    var inputs: [(offset: Int, shape: [Int])]
    var outputs: [(offset: Int, shape: [Int])]
    /// Constant tensors that operators read as activations, copied into the arena once.
    var constants: [(offset: Int, values: [Float])]
    var arenaCount: Int
    var scratchCount: Int
    var macs: Int
}
