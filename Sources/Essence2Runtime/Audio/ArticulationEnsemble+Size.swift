extension ArticulationNetwork {
    /// Values this network holds: input normalisation, weights and biases.
    var valueCount: Int {
        [inputMean, inputScale, embedWeights, embedBias, layer1Weights, layer1Bias, layer2Weights, layer2Bias,
         outputWeights, outputBias].reduce(0) { $0 + $1.count }
    }
}

/// The size of the learned lip-sync model shipped in the library, for reports (`essence2 bench`).
package enum ShippedLipSyncModel {
    /// Networks averaged.
    package static var members: Int { ArticulationEnsemble.shipped.members.count }
    /// Values of all members: input normalisation, weights and biases.
    package static var values: Int { ArticulationEnsemble.shipped.members.reduce(0) { $0 + $1.valueCount } }
    /// Bytes of the embedded weights file (half precision).
    package static var bytes: Int { ShippedWeights.byteCount }
}
