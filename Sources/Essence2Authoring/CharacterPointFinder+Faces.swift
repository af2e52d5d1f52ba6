import Essence2Runtime

extension CharacterPointFinder {
    /// Most faces `faces` offers.
    package static let maxFaces = 3

    /// Every character face in the picture, up to `limit` (a picture can hold a second face: a portrait on an
    /// easel, a pair of mascots), instead of one answer that averages them: `find`'s answer first, then each
    /// further face found with the ones before it cleared from the picture (made transparent over their heads'
    /// boxes, grown by a quarter), taken when the finder is sure of it (its confidence at least `lowConfidence`:
    /// a face, and the same points every way it looks) and its eyes lie outside every cleared box. The further faces are ordered largest first (their outlines' boxes).
    /// Each run is a whole `find`, so this costs about as much again for each face looked for.
    package static func faces(bgr: [UInt8], alpha: [UInt8]?, width: Int, height: Int, limit: Int = maxFaces)
        throws -> [CharacterFinding] {
        let network = try CharacterNetwork.embedded.get()
        let refiner = try CharacterNetwork.embeddedRefiner.get()
        let first = try find(bgr: bgr, alpha: alpha, width: width, height: height, network: network, refiner: refiner)
        var found = [first]
        var cleared = alpha ?? [UInt8](repeating: 255, count: width * height)
        var boxes: [PixelRect] = []
        var last = first
        while found.count < max(1, min(limit, maxFaces)) {
            guard let box = clearingBox(last.points.outline, width: width, height: height) else { break }
            boxes.append(box)
            for y in box.y..<box.maxY {
                for x in box.x..<box.maxX { cleared[y * width + x] = 0 }
            }
            let next = try find(bgr: bgr, alpha: cleared, width: width, height: height, network: network, refiner: refiner)
            let eyesOutside = [next.points.leftEye, next.points.rightEye].allSatisfy { eye in
                !boxes.contains { box in Self.contains(box, eye) }
            }
            guard next.confidence >= lowConfidence, eyesOutside else { break }
            found.append(next)
            last = next
        }
        let further = found.dropFirst().sorted { area($0.points.outline) > area($1.points.outline) }
        return [first] + further
    }

    /// The box of an outline grown by a quarter of its size each way, inside the picture; nil when empty.
    static func clearingBox(_ outline: [SIMD2<Float>], width: Int, height: Int) -> PixelRect? {
        guard let (lo, hi) = bounds(outline.filter { $0.x.isFinite && $0.y.isFinite }) else { return nil }
        let grow = (hi - lo) * 0.25
        let x0 = max(0, Int((lo.x - grow.x).rounded(.down))), y0 = max(0, Int((lo.y - grow.y).rounded(.down)))
        let x1 = min(width, Int((hi.x + grow.x).rounded(.up))), y1 = min(height, Int((hi.y + grow.y).rounded(.up)))
        guard x1 > x0, y1 > y0 else { return nil }
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Whether `p` lies in `box`.
    private static func contains(_ box: PixelRect, _ p: SIMD2<Float>) -> Bool {
        p.x >= Float(box.x) && p.x < Float(box.maxX) && p.y >= Float(box.y) && p.y < Float(box.maxY)
    }

    /// The area of an outline's box.
    private static func area(_ outline: [SIMD2<Float>]) -> Float {
        guard let (lo, hi) = bounds(outline) else { return 0 }
        return (hi.x - lo.x) * (hi.y - lo.y)
    }
}
