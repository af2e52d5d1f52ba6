/// Fixed vertex indices of the MediaPipe Face Mesh topology (468 face points plus 10 iris points) that the
/// renderer relies on. Right/left are the subject's own; lip and eye lists run from the subject's right
/// (image left) to the subject's left.
package enum MediaPipeFace {
    /// The contour of one eye: corners and the eyelid edges between them (corner to corner, outer first).
    package struct Eye: Sendable {
        package var outer: Int
        package var inner: Int
        package var upper: [Int]
        package var lower: [Int]

        package var contour: [Int] { [outer] + upper + [inner] + lower.reversed() }
    }

    /// Number of face points (the iris points that follow are not part of the tessellation).
    static let facePointCount = 468

    /// The outline of the face, in order around it.
    static let faceOval = [10, 338, 297, 332, 284, 251, 389, 356, 454, 323, 361, 288, 397, 365, 379, 378, 400, 377,
                           152, 148, 176, 149, 150, 136, 172, 58, 132, 93, 234, 127, 162, 21, 54, 103, 67, 109]

    static let upperOuterLip = [61, 185, 40, 39, 37, 0, 267, 269, 270, 409, 291]
    static let lowerOuterLip = [61, 146, 91, 181, 84, 17, 314, 405, 321, 375, 291]
    static let upperInnerLip = [78, 191, 80, 81, 82, 13, 312, 311, 310, 415, 308]
    static let lowerInnerLip = [78, 95, 88, 178, 87, 14, 317, 402, 318, 324, 308]

    package static let rightEye = Eye(outer: 33, inner: 133, upper: [246, 161, 160, 159, 158, 157, 173],
                              lower: [7, 163, 144, 145, 153, 154, 155])
    package static let leftEye = Eye(outer: 263, inner: 362, upper: [466, 388, 387, 386, 385, 384, 398],
                             lower: [249, 390, 373, 374, 380, 381, 382])

    static let mouthCornerRight = 61
    static let mouthCornerLeft = 291
    static let chin = 152
    static let foreheadTop = 10
    static let noseTip = 1
    static let cheekEdgeRight = 234
    static let cheekEdgeLeft = 454
    /// Points in the middle of each cheek, for sampling skin colour.
    static let cheekPoints = [50, 280, 205, 425, 101, 330]
}

extension MediaPipeFace {
    /// Each eyebrow as (upper edge, lower edge) point pairs, from the outer end to the inner end.
    static let rightBrow: [(Int, Int)] = [(70, 46), (63, 53), (105, 52), (66, 65), (107, 55)]
    static let leftBrow: [(Int, Int)] = [(300, 276), (293, 283), (334, 282), (296, 295), (336, 285)]
    /// The iris centres that follow the 468 face points in a 478-point mesh.
    static let irisCentres = [468, 473]
}
