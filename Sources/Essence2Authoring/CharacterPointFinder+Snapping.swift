import Essence2Runtime

/// The rig editor's fast path: a point the user drops near an eye or the mouth snaps onto it, and a rig is placed
/// from three clicks (the two eyes, then the mouth). Both look at the picture through the refinement network (the
/// second, close-up pass of `find`), which was trained for exactly this: a point some way off its feature, moved
/// onto it.
extension CharacterPointFinder {
    /// The points the refinement network looks at, in its order.
    package enum SnappedPoint: Int, CaseIterable, Sendable {
        case leftEye, rightEye, mouthLeft, mouthRight, mouthCenter

        /// The name in points files and the rig editor ("left_eye", …).
        package var name: String {
            switch self {
            case .leftEye: "left_eye"
            case .rightEye: "right_eye"
            case .mouthLeft: "mouth_left"
            case .mouthRight: "mouth_right"
            case .mouthCenter: "mouth_center"
            }
        }

        package init?(name: String) {
            guard let found = Self.allCases.first(where: { $0.name == name }) else { return nil }
            self = found
        }
    }

    /// How far (in eye distances) a snap may move a dropped point: farther, the drop is kept (the user placed it
    /// on purpose, or the network took another feature).
    package static let snapReach: Float = 0.3

    /// `points` with `point` moved onto the feature it was dropped near, as the refinement network sees it in the
    /// picture (looking again from where it moved the point, up to three times) (`bgr`, 3 bytes a pixel, B,G,R; `alpha` one byte a pixel or nil), when that is within `snapReach`
    /// eye distances; otherwise `points` as they are. Throws `badPicture` when the buffers do not match the size,
    /// `badWeights` when the embedded weights cannot be read.
    package static func snap(_ point: SnappedPoint, of points: CharacterPoints, bgr: [UInt8], alpha: [UInt8]?,
                             width: Int, height: Int) throws -> CharacterPoints {
        let picture = try checkedPicture(bgr: bgr, alpha: alpha, width: width, height: height)
        let refiner = try CharacterNetwork.embeddedRefiner.get()
        // Up to three looks, each from where the last one put the point (a point dropped far off its feature sees
        // it at the edge of the first crop), until it moves less than half a pixel.
        let before = ordered(points)
        var current = before
        for _ in 0..<3 {
            let next = refine(picture, current, refiner: refiner)[point.rawValue]
            guard next.x.isFinite, next.y.isFinite else { return points }
            let step = simd_length(next - current[point.rawValue])
            current[point.rawValue] = next
            if step < 0.5 { break }
        }
        let moved = current[point.rawValue]
        guard simd_length(moved - before[point.rawValue]) <= snapReach * max(points.eyeDistance, 1) else { return points }
        var out = points
        out.set(point, to: clampedInside(moved, width: width, height: height))
        return out
    }

    /// A rig from three clicks: the two eyes (in either order: the picture's left one becomes the left eye) and
    /// the mouth's centre. The mouth's corners start a third of the eye distance to each side of its centre,
    /// along the eyes' line; the refinement network then moves each of the five points onto its feature where that
    /// is within `snapReach` eye distances of the start (the corners within twice that), and the mouth's drawing
    /// (open or closed) is read from the picture as `avatar build` reads it. The eye radii and the outline are
    /// left to be measured from the picture. Throws as `snap` does, and `badPoints` when the clicks are not
    /// finite or the eyes are less than 2 pixels apart.
    package static func place(eyes first: SIMD2<Float>, _ second: SIMD2<Float>, mouth: SIMD2<Float>, bgr: [UInt8],
                              alpha: [UInt8]?, width: Int, height: Int) throws -> CharacterPoints {
        let picture = try checkedPicture(bgr: bgr, alpha: alpha, width: width, height: height)
        guard [first, second, mouth].allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else {
            throw CharacterPointFinderError.badPoints("a click that is not a finite point")
        }
        let (left, right) = first.x <= second.x ? (first, second) : (second, first)
        let eyeDistance = simd_length(right - left)
        guard eyeDistance >= 2 else {
            throw CharacterPointFinderError.badPoints("the two eyes are \(eyeDistance) pixels apart (at least 2)")
        }
        let axis = (right - left) / eyeDistance
        var points = CharacterPoints(
            leftEye: left, rightEye: right, mouthLeft: mouth - axis * (eyeDistance / 3),
            mouthRight: mouth + axis * (eyeDistance / 3), mouthCenter: mouth, mouth: .open)
        let refiner = try CharacterNetwork.embeddedRefiner.get()
        let before = ordered(points)
        let after = refine(picture, before, refiner: refiner)
        for point in SnappedPoint.allCases {
            let reach = snapReach * eyeDistance * (point == .mouthLeft || point == .mouthRight ? 2 : 1)
            let moved = after[point.rawValue]
            if moved.x.isFinite, moved.y.isFinite, simd_length(moved - before[point.rawValue]) <= reach {
                points.set(point, to: clampedInside(moved, width: width, height: height))
            }
        }
        if points.rightEye.x - points.leftEye.x < 2 { (points.leftEye, points.rightEye) = (left, right) }
        if points.mouthRight.x - points.mouthLeft.x < 2 {
            (points.mouthLeft, points.mouthRight) = (mouth - axis * (eyeDistance / 3), mouth + axis * (eyeDistance / 3))
        }
        points.mouth = CharacterAvatarBuilder.confirmedMouth(points, runnerUp: .closed, bgr: bgr, alpha: alpha,
                                                             width: width, height: height)
        return points
    }

    /// The picture, when the buffers match its size (`badPicture` otherwise).
    static func checkedPicture(bgr: [UInt8], alpha: [UInt8]?, width: Int, height: Int) throws -> Picture {
        guard width > 0, height > 0, width <= 1 << 15, height <= 1 << 15 else {
            throw CharacterPointFinderError.badPicture("size \(width) x \(height)")
        }
        guard bgr.count == width * height * 3 else {
            throw CharacterPointFinderError.badPicture("\(bgr.count) colour bytes for \(width) x \(height) pixels")
        }
        if let alpha, alpha.count != width * height {
            throw CharacterPointFinderError.badPicture("\(alpha.count) alpha bytes for \(width) x \(height) pixels")
        }
        return Picture(bgr: bgr, alpha: alpha, width: width, height: height)
    }

    /// The five points in the refinement network's order.
    private static func ordered(_ p: CharacterPoints) -> [SIMD2<Float>] {
        [p.leftEye, p.rightEye, p.mouthLeft, p.mouthRight, p.mouthCenter]
    }

    private static func clampedInside(_ p: SIMD2<Float>, width: Int, height: Int) -> SIMD2<Float> {
        SIMD2(min(max(p.x, 0), Float(width)), min(max(p.y, 0), Float(height)))
    }
}

extension CharacterPoints {
    /// Sets one of the five points the refinement network looks at.
    mutating func set(_ point: CharacterPointFinder.SnappedPoint, to value: SIMD2<Float>) {
        switch point {
        case .leftEye: leftEye = value
        case .rightEye: rightEye = value
        case .mouthLeft: mouthLeft = value
        case .mouthRight: mouthRight = value
        case .mouthCenter: mouthCenter = value
        }
    }
}
