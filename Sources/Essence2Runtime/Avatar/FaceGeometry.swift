/// The upright frame of a face, from its landmarks: where the head is and how large, used to place the head
/// box and the head mask. `up` points from the chin toward the forehead; `right` is image-right for an
/// upright face; lengths are in pixels.
package struct FaceGeometry {
    /// Midpoint between chin and forehead top.
    package var center: SIMD2<Float>
    /// Unit vector from chin to forehead top.
    var up: SIMD2<Float>
    /// Unit vector perpendicular to `up`, pointing image-right for an upright face.
    var right: SIMD2<Float>
    /// Chin-to-forehead-top distance.
    package var faceHeight: Float
    /// Width of the face box.
    package var faceWidth: Float

    package init?(_ landmarks: FaceLandmarks) {
        guard let chin = landmarks.points["chin"], let forehead = landmarks.points["forehead_top"] else { return nil }
        let axis = forehead - chin
        let length = (axis.x * axis.x + axis.y * axis.y).squareRoot()
        guard length.isFinite, length >= 4 else { return nil }
        center = (chin + forehead) / 2
        up = axis / length
        right = SIMD2(-up.y, up.x)
        faceHeight = length
        faceWidth = Float(max(landmarks.faceBox.width, 1))
    }

    /// Face-frame coordinates of an image point: u along `right`, v along `up`, both divided by `faceHeight`.
    package func local(_ p: SIMD2<Float>) -> SIMD2<Float> {
        let d = p - center
        return SIMD2((d.x * right.x + d.y * right.y) / faceHeight, (d.x * up.x + d.y * up.y) / faceHeight)
    }

    /// The image point of face-frame coordinates (u, v).
    package func image(_ u: Float, _ v: Float) -> SIMD2<Float> {
        center + right * (u * faceHeight) + up * (v * faceHeight)
    }
}
