/// The weights file format (written by tools/lipsync/export.py), little-endian: "E2LS", then UInt32 version (2) and
/// UInt32 member count (1 ... `maxMembers`), then each member's block (`ArticulationNetwork.parse`), nothing after.
extension ArticulationEnsemble {
    static let magic: [UInt8] = Array("E2LS".utf8)
    static let version: UInt32 = 2

    /// The model in `bytes`, or nil unless they hash to `sha256` (lower-case hex) and form a complete weights file.
    static func decode(_ bytes: [UInt8], sha256: String) -> ArticulationEnsemble? {
        guard SHA256.hex(SHA256.hash(bytes)) == sha256 else { return nil }
        return ArticulationEnsemble(bytes: bytes)
    }

    /// Parses a weights file; nil when the header, a member block or the size is wrong.
    init?(bytes: [UInt8]) {
        guard bytes.count >= 12, Array(bytes[0..<4]) == Self.magic else { return nil }
        func word(_ i: Int) -> Int {
            Int(bytes[i]) | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2]) << 16 | Int(bytes[i + 3]) << 24
        }
        let count = word(8)
        guard word(4) == Int(Self.version), (1...Self.maxMembers).contains(count) else { return nil }
        var members: [ArticulationNetwork] = []
        var offset = 12
        for _ in 0..<count {
            guard let (network, end) = ArticulationNetwork.parse(bytes, at: offset) else { return nil }
            members.append(network)
            offset = end
        }
        guard offset == bytes.count else { return nil }
        self.init(members: members)
    }
}
