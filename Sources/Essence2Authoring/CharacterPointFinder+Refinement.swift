extension CharacterPointFinder {
    /// The refinement pass's crop side, in the found eye distance (tools/character/refine.py ZOOM).
    static let refinementZoom: Float = 1.6
    /// A refined mouth centre farther than this times the mouth's width from the refined corners' middle is not
    /// taken (tools/character/refine.py CENTRE_LIMIT): on a closed mouth over a bow tie or a chin the refiner can
    /// take the wrong line.
    static let refinedCentreLimit: Float = 0.5
    /// The refiner's heatmap for each point (left eye, right eye, mouth left, mouth right, mouth centre) in a
    /// mirrored crop: left and right swapped.
    private static let mirroredKind = [1, 0, 3, 2, 4]

    /// The eye and mouth points (the first five of `points`) looked at again up close: around each, a square of
    /// `refinementZoom` eye distances, run through `refiner` as it is and mirrored; the point is the mean of the
    /// two answers (the mirrored one mirrored back). The brows and any point past the fifth are kept. Points that
    /// are not finite are returned as they are.
    static func refine(_ picture: Picture, _ points: [SIMD2<Float>], refiner: CharacterNetwork) -> [SIMD2<Float>] {
        guard points.count >= 5, points.allSatisfy({ $0.x.isFinite && $0.y.isFinite }),
              refiner.outputCount == CharacterNetwork.refinerOutputs else { return points }
        var out = points
        let side = max(4, refinementZoom * max(2, simd_length(points[1] - points[0])))
        for i in 0..<5 {
            let box = Box(x0: points[i].x - side / 2, y0: points[i].y - side / 2, side: side)
            let plain = refiner.run(crop(picture, box, size: refiner.size, mirrored: false))
            let mirrored = refiner.run(crop(picture, box, size: refiner.size, mirrored: true))
            let j = mirroredKind[i]
            let a = SIMD2(plain[2 * i], plain[2 * i + 1]), b = SIMD2(1 - mirrored[2 * j], mirrored[2 * j + 1])
            out[i] = SIMD2(box.x0, box.y0) + (a + b) / 2 * box.side
        }
        let middle = (out[2] + out[3]) / 2
        if simd_length(out[4] - middle) > refinedCentreLimit * max(1e-3, simd_length(out[3] - out[2])) {
            out[4] = points[4]
        }
        return out
    }
}
