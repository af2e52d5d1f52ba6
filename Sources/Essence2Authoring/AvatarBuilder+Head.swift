import Essence2Runtime

extension AvatarBuilder {
    /// The HEAD-mode crop: a square around the head including hair above the forehead (0.55 face heights) and
    /// some neck below the chin, 1.9 face heights (at least 2.1 face widths) a side, shifted and if need be
    /// shrunk to lie inside the portrait.
    package static func headBox(_ face: FaceGeometry, width: Int, height: Int) -> PixelRect {
        let wanted = max(1.9 * face.faceHeight, 2.1 * face.faceWidth)
        let side = max(1, min(Int(wanted.rounded()), width, height))
        let centre = face.image(0, 0.1)
        let x = min(max(Int((centre.x - Float(side) / 2).rounded()), 0), width - side)
        let y = min(max(Int((centre.y - Float(side) / 2).rounded()), 0), height - side)
        return PixelRect(x: x, y: y, width: side, height: side)
    }

    /// The soft mask of what moves with the head, from geometry alone: an ellipse covering face and hair
    /// (from 0.7 face heights below the forehead top's level to 0.55 above it, 0.6 face heights or 0.68 face
    /// widths to each side), the mesh's face silhouette, and the neck below the chin fading from 255 at
    /// 0.05 face heights under the chin to 0 at 0.6; then feathered by two box blurs of 5% of the face height.
    static func headMask(_ face: FaceGeometry, mesh: FaceMesh, width: Int, height: Int) -> [UInt8] {
        var mask = [UInt8](repeating: 0, count: width * height)
        let halfWidth = max(0.6, 0.68 * face.faceWidth / face.faceHeight)
        let ellipseCentre: Float = 0.2, ellipseHalfHeight: Float = 0.85
        let neckHalfWidth: Float = 0.32, neckFull: Float = -0.55, neckEnd: Float = -1.1
        let oval = FaceMesh.mediaPipeFaceOval.compactMap { $0 < mesh.points.count ? SIMD2(mesh.points[$0].x, mesh.points[$0].y) : nil }

        // Only the pixels near the face can be inside: bound the work by the head's extent.
        let reach = face.faceHeight * 1.4 + 4
        let x0 = max(0, Int(face.center.x - reach)), x1 = min(width, Int(face.center.x + reach) + 1)
        let y0 = max(0, Int(face.center.y - reach)), y1 = min(height, Int(face.center.y + reach) + 1)
        if x0 < x1, y0 < y1 {
            for y in y0..<y1 {
                for x in x0..<x1 {
                    let p = SIMD2(Float(x) + 0.5, Float(y) + 0.5)
                    let q = face.local(p)
                    let eu = q.x / halfWidth, ev = (q.y - ellipseCentre) / ellipseHalfHeight
                    var value: Float = 0
                    if eu * eu + ev * ev <= 1 || contains(oval, p) {
                        value = 255
                    } else if abs(q.x) <= neckHalfWidth, q.y <= 0, q.y > neckEnd {
                        value = 255 * min(1, (q.y - neckEnd) / (neckFull - neckEnd))
                    }
                    mask[y * width + x] = UInt8(value.rounded())
                }
            }
        }
        let radius = max(1, Int((0.05 * face.faceHeight).rounded()))
        ImageFilters.boxBlur(&mask, width: width, height: height, channels: 1, radius: radius)
        ImageFilters.boxBlur(&mask, width: width, height: height, channels: 1, radius: radius)
        return mask
    }

    /// Even-odd point-in-polygon test.
    private static func contains(_ polygon: [SIMD2<Float>], _ p: SIMD2<Float>) -> Bool {
        guard polygon.count >= 3 else { return false }
        var inside = false
        var j = polygon.count - 1
        for i in 0..<polygon.count {
            let a = polygon[i], b = polygon[j]
            if (a.y > p.y) != (b.y > p.y), p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
            j = i
        }
        return inside
    }
}
