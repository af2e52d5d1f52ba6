import Essence2Runtime

/// Why faces could not be found or measured in an image. `description` is one human sentence.
package struct FaceAnalysisError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The class of failure.
    package enum Kind: String, Sendable, CaseIterable {
        /// The image buffer or its dimensions are invalid (wrong byte count, zero or absurd size).
        case invalidImage
        /// The image is too small to find a face in (under `FaceAnalyzer.minImageSide` on a side).
        case imageTooSmall
        /// A model file is missing, unreadable, malformed, or not the model expected.
        case invalidModel
        /// The detector found no face.
        case noFace
        /// The detector found several faces and no index chose one.
        case severalFaces
        /// The face index asked for does not exist.
        case noSuchFace
        /// The landmark model does not see a face in the detected region.
        case noLandmarks
    }

    /// The class of failure.
    package var kind: Kind
    /// What exactly went wrong, in words.
    package var reason: String

    package init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    package var description: String { reason }
}
