import Essence2Runtime

/// The MediaPipe model files the avatar builder runs (shipped in `models/`, Apache-2.0), each with the SHA-256
/// the project was tested with. A file whose digest differs is refused before it is parsed.
package enum FaceModelFile: String, Sendable, CaseIterable {
    /// BlazeFace short range: input 1x128x128x3, 896 anchors.
    case detector = "face_detection_short_range.tflite"
    /// Face Mesh: input 1x192x192x3, 468 landmarks.
    case landmarks = "face_landmark.tflite"
    /// Selfie segmentation (person mask): shipped with the others, not used by the builder yet.
    case segmentation = "selfie_segmentation.tflite"

    /// The file name in the models directory.
    package var fileName: String { rawValue }

    /// Lower-case hex SHA-256 of the file as shipped.
    package var sha256: String {
        switch self {
        case .detector: "bbff11cebd1eb27a1e004cae0b0e63ec8c551cbf34a4451148b4908b8db3eca8"
        case .landmarks: "1055cb9d4a9ca8b8c688902a3a5194311138ba256bcc94e336d8373a5f30c814"
        case .segmentation: "9ee168ec7c8f2a16c56fe8e1cfbc514974cbbb7e434051b455635f1bd1462f5c"
        }
    }

    /// Largest model file read (the shipped ones are at most 1.3 MB).
    package static let maxSize = 16 << 20

    /// Checks `bytes` against this model's size limit and digest.
    /// - Returns: nil when they match, else a sentence saying what is wrong.
    package func problem(with bytes: [UInt8]) -> String? {
        guard bytes.count <= Self.maxSize else {
            return "\(fileName): \(bytes.count) bytes, more than the limit of \(Self.maxSize)"
        }
        let digest = SHA256.hex(SHA256.hash(bytes))
        guard digest == sha256 else {
            return "\(fileName): sha256 \(digest) differs from the shipped model's \(sha256) (damaged or replaced file)"
        }
        return nil
    }
}
