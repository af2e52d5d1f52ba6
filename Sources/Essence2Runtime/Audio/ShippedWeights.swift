import CEssence2Weights

/// The learned lip-sync model's weights file as embedded in the library by `CEssence2Weights` (written by
/// tools/lipsync/export.py), with the size and SHA-256 the exporter recorded beside it.
enum ShippedWeights {
    /// A copy of the embedded bytes.
    static var bytes: [UInt8] {
        Array(UnsafeBufferPointer(start: e2_lipsync_weights(), count: Int(e2_lipsync_weights_size())))
    }

    /// Size of the weights file in bytes, as recorded by the exporter.
    static let byteCount = Int(E2_LIPSYNC_WEIGHTS_SIZE)

    /// SHA-256 of the weights file (lower-case hex), as recorded by the exporter.
    static let sha256: String = E2_LIPSYNC_WEIGHTS_SHA256
}
