import Essence2Runtime
import Essence2Vision
import Essence2Authoring

/// Finds the face in a portrait and turns the portrait into an avatar of the size asked for: the command-line
/// side of `FaceAnalyzer` (model files found by `ModelLocator`, read and checked by `FaceAnalyzer`, framing by `PortraitFraming`).
struct FaceFinder {
    private var analyzer: FaceAnalyzer

    /// Loads and checks the detector and landmark models.
    init(modelDirectory: String?) throws(CLIError) {
        let directory = try ModelLocator.directory(given: modelDirectory)
        do {
            analyzer = try FaceAnalyzer(modelDirectory: directory)
        } catch {
            throw CLIError("face models in \(directory): \(error)")
        }
    }

    /// Every face found in `image`, left to right.
    mutating func faces(in image: ImageBuffer) throws(CLIError) -> [FaceDetection] {
        do {
            return try analyzer.detectFaces(bgr: image.bgr, width: image.width, height: image.height)
        } catch {
            throw CLIError(Self.message(error))
        }
    }

    /// The face's 468 landmarks (and the mesh made from them).
    mutating func landmarks(in image: ImageBuffer, face: FaceDetection) throws(CLIError) -> FaceLandmarkResult {
        do {
            return try analyzer.landmarks(bgr: image.bgr, width: image.width, height: image.height, face: face)
        } catch {
            throw CLIError(Self.message(error))
        }
    }

    /// The avatar made from `image`: the face `face` (counted from 1, left to right; nil when there is one),
    /// the image resized as asked (nil: kept, scaled down to `PortraitFraming.defaultLongSide` when larger;
    /// `fit`: the whole portrait placed on the canvas; else cropped around the face to fill it), its landmarks
    /// and mesh found again in the final image.
    mutating func avatar(from image: ImageBuffer, name: String, size: (width: Int, height: Int)?, fit: Bool,
                         face number: Int?, seed: UInt64) throws -> (avatar: Avatar, placement: String, face: String) {
        let found = try faces(in: image)
        let face: FaceDetection
        do {
            face = try FaceAnalyzer.choose(found, number: number)
        } catch {
            throw CLIError(Self.message(error))
        }
        let faceText = found.count == 1 ? "the only face, \(face)" : "face \(number ?? 1) of \(found.count), \(face)"

        // The region of the portrait kept and the size it is resampled to.
        let whole = PixelRect(x: 0, y: 0, width: image.width, height: image.height)
        var region = whole
        var target = PortraitFraming.defaultSize(width: image.width, height: image.height)
        var placement = "portrait \(image.width)x\(image.height)"
        if let size {
            if fit {
                let scale = min(Double(size.width) / Double(image.width), Double(size.height) / Double(image.height))
                target = (min(size.width, max(1, Int((Double(image.width) * scale).rounded()))),
                          min(size.height, max(1, Int((Double(image.height) * scale).rounded()))))
                placement += " placed whole on a \(size.width)x\(size.height) canvas"
            } else {
                region = PortraitFraming.cropRegion(imageWidth: image.width, imageHeight: image.height,
                                                    face: (face.x, face.y, face.width, face.height),
                                                    canvasWidth: size.width, canvasHeight: size.height)
                target = size
                placement += " cropped to \(region.width)x\(region.height) at (\(region.x), \(region.y)) around the face"
                    + " and resized to \(size.width)x\(size.height)"
            }
        } else if target != (image.width, image.height) {
            placement += " scaled down to \(target.width)x\(target.height) (longest side \(PortraitFraming.defaultLongSide))"
        }

        var final = image
        var chosen = face
        if region != whole || target != (image.width, image.height) {
            guard let pixels = PortraitFraming.resample(bgr: image.bgr, width: image.width, height: image.height,
                                                        region: region, toWidth: target.width, height: target.height) else {
                throw CLIError("cannot resample the \(image.width)x\(image.height) portrait to \(target.width)x\(target.height)")
            }
            final = ImageBuffer(width: target.width, height: target.height, bgr: pixels)
            // Find the chosen face again in the resampled image: the one nearest to where it went.
            let sx = Float(target.width) / Float(region.width), sy = Float(target.height) / Float(region.height)
            let expected = SIMD2<Float>((face.center.x - Float(region.x)) * sx, (face.center.y - Float(region.y)) * sy)
            let again: [FaceDetection]
            do {
                again = try faces(in: final)
            } catch {
                throw CLIError("the face is lost after resizing the portrait to \(target.width)x\(target.height) (\(error)); "
                    + "choose a larger --size or --fit")
            }
            chosen = again.min { Self.distance($0.center, expected) < Self.distance($1.center, expected) } ?? face
        }
        let result = try landmarks(in: final, face: chosen)
        var avatar = try AvatarBuilder.build(name: name, bgr: final.bgr, width: final.width, height: final.height,
                                             landmarks: result.landmarks(), mesh: result.mesh(), seed: seed)
        if let size, fit {
            avatar = avatar.placed(onCanvasWidth: size.width, height: size.height)
        }
        return (avatar, placement, faceText)
    }

    private static func distance(_ a: SIMD2<Float>, _ b: SIMD2<Float>) -> Float {
        let d = a - b
        return (d * d).sum()
    }

    static func message(_ error: FaceAnalysisError) -> String {
        switch error.kind {
        case .severalFaces: "\(error) with --face N (1 = leftmost)"
        case .noFace: "\(error): the portrait needs one face seen from the front, not too small (at least about 1/8 of the image)"
        default: "\(error)"
        }
    }
}
