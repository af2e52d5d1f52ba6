/// The learned lip-sync model an engine uses: the one shipped in the library, or one read from a shared
/// engine container (`EngineContainer`), checked and decoded.
package struct LipSyncWeights: Sendable {
    let ensemble: ArticulationEnsemble
    /// SHA-256 of the weights file, lower-case hex.
    package let sha256: String

    /// The weights the library carries.
    package static var shipped: LipSyncWeights {
        LipSyncWeights(ensemble: .shipped, sha256: ShippedWeights.sha256)
    }

    private init(ensemble: ArticulationEnsemble, sha256: String) {
        self.ensemble = ensemble
        self.sha256 = sha256
    }

    /// Decodes a weights file (E2NW, `NeuralWeights`, of the lip-sync kind); nil when it is not a complete,
    /// well-formed one.
    package init?(bytes: [UInt8]) {
        guard let weights = try? Self(decoding: bytes) else { return nil }
        self = weights
    }

    /// Decodes a weights file; throws what is wrong (an old E2LS file: that it needs converting).
    package init(decoding bytes: [UInt8]) throws(NeuralWeightsError) {
        let ensemble = try ArticulationEnsemble(weights: NeuralWeights(bytes: bytes))
        guard ensemble.bandCount == LogMelAnalyzer.bandCount, ensemble.contextHops <= 64 else {
            throw NeuralWeightsError("the lip-sync model reads \(ensemble.bandCount) bands and \(ensemble.contextHops) "
                + "hops, not \(LogMelAnalyzer.bandCount) bands and at most 64 hops")
        }
        self.init(ensemble: ensemble, sha256: SHA256.hex(SHA256.hash(bytes)))
    }

    /// The shipped weights file's bytes (what `essence2 engine export` writes into a container).
    package static var shippedBytes: [UInt8] { ShippedWeights.bytes }
}
