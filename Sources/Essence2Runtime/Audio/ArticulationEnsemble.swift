/// The learned model as shipped: one or more `ArticulationNetwork`s, trained apart, that read the same hop inputs.
/// A frame's articulation is the mean of the members' (summed member by member in order, so the same input
/// always gives the same bits): averaging networks that erred differently cancels part of their errors.
struct ArticulationEnsemble: Sendable {
    /// At least one; all take the same inputs (`bandCount` bands and `extraInputs` more per hop).
    let members: [ArticulationNetwork]
    /// The most hops any member reads for one frame.
    let contextHops: Int
    /// Most members a weights file may hold.
    static let maxMembers = 8

    /// nil unless there are 1 ... `maxMembers` members that all take the same inputs.
    init?(members: [ArticulationNetwork]) {
        guard let first = members.first, members.count <= Self.maxMembers,
            members.allSatisfy({ $0.bandCount == first.bandCount && $0.extraInputs == first.extraInputs })
        else { return nil }
        self.members = members
        contextHops = members.map(\.contextHops).max() ?? 0
    }

    var bandCount: Int { members[0].bandCount }
    var extraInputs: Int { members[0].extraInputs }
    /// Inputs of one hop: the bands, then the extra inputs.
    var inputCount: Int { members[0].inputCount }

    /// The model shipped in the library (the bytes `CEssence2Weights` embeds), decoded and checked on first use.
    static let shipped: ArticulationEnsemble = {
        guard let model = decode(ShippedWeights.bytes, sha256: ShippedWeights.sha256) else {
            preconditionFailure("the embedded lip-sync weights do not decode (lipsync_weights.e2nw is damaged)")
        }
        return model
    }()
}
