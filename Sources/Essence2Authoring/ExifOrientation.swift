/// The EXIF Orientation tag (TIFF tag 0x0112, values 1-8): how the stored pixels must be transformed to show
/// the picture upright. Phones store a portrait as the sensor saw it and set this tag instead of rotating.
///
/// Each case is named by the transform that takes the stored pixels to the displayed picture, as the EXIF 2.32
/// specification defines it (for case 6: "the 0th row is the visual right-hand side, the 0th column the visual
/// top", so the stored image turned 90 degrees clockwise is upright). Cases 5-8 swap width and height.
package enum ExifOrientation: UInt16, Sendable, CaseIterable {
    /// 1: stored upright.
    case identity = 1
    /// 2: mirrored left to right.
    case mirrorHorizontal = 2
    /// 3: turned half a turn.
    case rotate180 = 3
    /// 4: mirrored top to bottom.
    case mirrorVertical = 4
    /// 5: mirrored across the main diagonal (stored row r is displayed column r).
    case transpose = 5
    /// 6: turned 90 degrees clockwise.
    case rotate90Clockwise = 6
    /// 7: mirrored across the other diagonal.
    case transverse = 7
    /// 8: turned 270 degrees clockwise (90 counter-clockwise).
    case rotate270Clockwise = 8

    /// What applying the orientation did, in words: "rotated 90° clockwise".
    package var action: String {
        switch self {
        case .identity: "left as stored"
        case .mirrorHorizontal: "mirrored left to right"
        case .rotate180: "rotated 180°"
        case .mirrorVertical: "mirrored top to bottom"
        case .transpose: "mirrored left to right and rotated 90° counter-clockwise"
        case .rotate90Clockwise: "rotated 90° clockwise"
        case .transverse: "mirrored left to right and rotated 90° clockwise"
        case .rotate270Clockwise: "rotated 90° counter-clockwise"
        }
    }

    /// Whether the displayed picture's width is the stored height (cases 5-8).
    package var swapsSides: Bool { rawValue >= 5 }

    /// The displayed size of a picture stored as `width` x `height`.
    package func displayedSize(width: Int, height: Int) -> (width: Int, height: Int) {
        swapsSides ? (height, width) : (width, height)
    }
}
