/// The weights file (written by tools/lipsync/export.py) is an E2NW file (`NeuralWeights`) of kind
/// `ArticulationEnsemble.kind`: `members` (int32, 1 ... `maxMembers`), then each member's tensors
/// (`ArticulationNetwork.init(weights:member:)`), nothing else.
extension ArticulationEnsemble {
    /// The network kind of a lip-sync weights file.
    static let kind = "essence2-lipsync"

    /// The model in `bytes`, or nil unless they hash to `sha256` (lower-case hex) and form a complete weights file.
    static func decode(_ bytes: [UInt8], sha256: String) -> ArticulationEnsemble? {
        guard SHA256.hex(SHA256.hash(bytes)) == sha256 else { return nil }
        return ArticulationEnsemble(bytes: bytes)
    }

    /// Parses a weights file; nil when anything in it is wrong (`init(weights:)` says what).
    init?(bytes: [UInt8]) {
        guard let weights = try? NeuralWeights(bytes: bytes), let ensemble = try? Self(weights: weights) else { return nil }
        self = ensemble
    }

    /// The ensemble in a weights file; throws when it holds another kind of network, the member count is out of
    /// range, a member does not decode or a tensor is left over.
    init(weights: NeuralWeights) throws(NeuralWeightsError) {
        try weights.expect(kind: Self.kind)
        let count = try weights.int("members")
        guard (1...Self.maxMembers).contains(count) else {
            throw NeuralWeightsError("\(count) lip-sync members, not 1 ... \(Self.maxMembers)")
        }
        var members: [ArticulationNetwork] = []
        for index in 0..<count { members.append(try ArticulationNetwork(weights: weights, member: index)) }
        guard weights.names.count == 1 + count * (1 + ArticulationNetwork.arrayNames.count) else {
            throw NeuralWeightsError("the lip-sync weights file holds tensors no member reads")
        }
        guard let ensemble = ArticulationEnsemble(members: members) else {
            throw NeuralWeightsError("the lip-sync members do not take the same inputs")
        }
        self = ensemble
    }
}
