import Essence2Runtime

extension Avatar {
    /// This avatar at 1/`factor` of its size (nearest pixel; every point, box, radius and the rig's placement
    /// scaled alike), so a harness can read and render many mutants of a real avatar a second. Traps when the
    /// result does not validate: that is a harness setup error, not a finding.
    package func downscaled(by factor: Int) -> Avatar {
        let newWidth = width / factor, newHeight = height / factor
        let scale = SIMD2<Float>(Float(newWidth) / Float(width), Float(newHeight) / Float(height))
        func point(_ p: SIMD2<Float>) -> SIMD2<Float> { p * scale }
        func box(_ r: PixelRect) -> PixelRect {
            let x = min(r.x / factor, newWidth - 1), y = min(r.y / factor, newHeight - 1)
            return PixelRect(x: x, y: y, width: max(1, min(r.width / factor, newWidth - x)),
                             height: max(1, min(r.height / factor, newHeight - y)))
        }
        func sample(_ plane: [UInt8], channels: Int) -> [UInt8] {
            guard !plane.isEmpty else { return [] }
            var out = [UInt8](repeating: 0, count: newWidth * newHeight * channels)
            for y in 0..<newHeight {
                for x in 0..<newWidth {
                    let from = ((y * factor) * width + x * factor) * channels
                    let to = (y * newWidth + x) * channels
                    for c in 0..<channels { out[to + c] = plane[from + c] }
                }
            }
            return out
        }
        var small: Avatar
        if let rig = character {
            let scaledRig = CharacterRig(
                leftEye: point(rig.leftEye), rightEye: point(rig.rightEye),
                leftEyeRadius: max(0.5, rig.leftEyeRadius * scale.x), rightEyeRadius: max(0.5, rig.rightEyeRadius * scale.x),
                mouthLeft: point(rig.mouthLeft), mouthRight: point(rig.mouthRight), mouthCenter: point(rig.mouthCenter),
                leftBrow: rig.leftBrow.map(point), rightBrow: rig.rightBrow.map(point), mouth: rig.mouth,
                mouthOpening: rig.mouthOpening * scale.y, outline: rig.outline.map(point),
                sourceWidth: rig.sourceWidth, sourceHeight: rig.sourceHeight, sourceScale: rig.sourceScale * scale.x,
                sourceOffset: point(rig.sourceOffset))
            small = Avatar(name: name, width: newWidth, height: newHeight, pixels: sample(pixels, channels: 3),
                           character: scaledRig, headBox: box(headBox), headMask: sample(headMask, channels: 1), seed: seed)
        } else {
            let scaledLandmarks = FaceLandmarks(
                points: landmarks.points.mapValues(point), lipsOuter: landmarks.lipsOuter.map(point),
                lipsInner: landmarks.lipsInner.map(point), faceBox: box(landmarks.faceBox), mouthBox: box(landmarks.mouthBox))
            let scaledMesh = FaceMesh(points: mesh.points.map { SIMD3($0.x * scale.x, $0.y * scale.y, $0.z * scale.x) },
                                      triangles: mesh.triangles)
            small = Avatar(name: name, width: newWidth, height: newHeight, pixels: sample(pixels, channels: 3),
                           landmarks: scaledLandmarks, mesh: scaledMesh, headBox: box(headBox),
                           headMask: sample(headMask, channels: 1), seed: seed)
        }
        if let problem = small.validationProblem() {
            fatalError("fuzz harness: \(name) at 1/\(factor) does not validate: \(problem)")
        }
        return small
    }
}
