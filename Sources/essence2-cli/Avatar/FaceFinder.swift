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
    /// and mesh found again in the final image. `warning` says when the portrait is enlarged more than
    /// `PortraitFraming.softEnlargement` times (the avatar will look soft) and what to do.
    mutating func avatar(from image: ImageBuffer, name: String, size: (width: Int, height: Int)?, fit: Bool,
                         face number: Int?, seed: UInt64)
        throws -> (avatar: Avatar, placement: String, face: String, warning: String?) {
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
        if FaceAnalyzer.sizeProblem(width: target.width, height: target.height) != nil {
            let asked = size.map { " for --size \($0.width)x\($0.height)\(fit ? " --fit" : "")" } ?? ""
            throw CLIError("the portrait would be resized to \(target.width)x\(target.height) pixels\(asked), too small to "
                + "find its face in (at least \(FaceAnalyzer.minImageSide) pixels a side): choose a larger --size")
        }
        let warning = size.flatMap { Self.enlargementWarning(image: image, region: region, target: target, canvas: $0, fit: fit) }

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
        return (avatar, placement, faceText, warning)
    }

    /// The warning for a portrait enlarged more than `PortraitFraming.softEnlargement` times to `target`
    /// (nil when it is not): what is enlarged, how much, and what to do instead.
    private static func enlargementWarning(image: ImageBuffer, region: PixelRect, target: (width: Int, height: Int),
                                           canvas: (width: Int, height: Int), fit: Bool) -> String? {
        let factor = PortraitFraming.enlargement(region: region, toWidth: target.width, height: target.height)
        guard factor > PortraitFraming.softEnlargement else { return nil }
        let times = Formatting.fixed(factor, digits: 1)
        if fit {
            return "the portrait (\(image.width)x\(image.height) pixels) is enlarged \(times) times to fit "
                + "\(canvas.width)x\(canvas.height); the avatar will look soft: use a larger photo, or a smaller --size"
        }
        let fitted = min(Double(canvas.width) / Double(image.width), Double(canvas.height) / Double(image.height))
        let fitText = fitted > 1 ? "enlarged \(Formatting.fixed(fitted, digits: 1)) times" : "not enlarged"
        return "the portrait's face region (\(region.width)x\(region.height) pixels) is enlarged \(times) times to fill "
            + "\(canvas.width)x\(canvas.height); the avatar will look soft: use a larger photo, or --fit (the whole "
            + "portrait on the canvas, \(fitText))"
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
