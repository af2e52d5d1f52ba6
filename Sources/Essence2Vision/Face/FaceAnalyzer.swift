import Essence2Runtime

/// Finds faces and their MediaPipe Face Mesh landmarks in a B,G,R image, in pure Swift: BlazeFace short
/// range and Face Mesh (MediaPipe 0.10.21's models) run by `TFLiteInterpreter`, with MediaPipe's pre- and
/// post-processing (letterbox, anchors, weighted non-maximum suppression, rotated 1.5x face crop).
///
/// Images are packed B,G,R bytes, rows top to bottom. Coordinates are pixels with pixel (i, j)'s centre at
/// (i, j), x right, y down. Bad input is a thrown `FaceAnalysisError`, never a trap. Not thread-safe: use
/// one analyser per thread.
package struct FaceAnalyzer {

    private var detector: FaceDetector
    private var landmarker: FaceLandmarker

    /// An analyser running the given models (checked to have the expected inputs and outputs).
    package init(detectorModel: TFLiteModel, landmarkModel: TFLiteModel) throws(FaceAnalysisError) {
        detector = try FaceDetector(model: detectorModel)
        landmarker = try FaceLandmarker(model: landmarkModel)
    }

    /// An analyser running the models held in the given `.tflite` file bytes.
    package init(detectorModel: [UInt8], landmarkModel: [UInt8]) throws(FaceAnalysisError) {
        try self.init(detectorModel: Self.model(detectorModel, label: "face detector"),
                      landmarkModel: Self.model(landmarkModel, label: "face landmark"))
    }

    /// An analyser running `face_detection_short_range.tflite` and `face_landmark.tflite` from `directory`,
    /// each checked against its SHA-256 (`FaceModelFile`) before it is parsed.
    package init(modelDirectory directory: String) throws(FaceAnalysisError) {
        var loaded: [[UInt8]] = []
        for model in [FaceModelFile.detector, .landmarks] {
            let path = directory.hasSuffix("/") ? directory + model.fileName : directory + "/" + model.fileName
            let bytes: [UInt8]
            do {
                bytes = try BinaryFile.read(path: path, maxSize: FaceModelFile.maxSize)
            } catch {
                throw FaceAnalysisError(.invalidModel, "cannot read model: \(error)")
            }
            if let problem = model.problem(with: bytes) { throw FaceAnalysisError(.invalidModel, problem) }
            loaded.append(bytes)
        }
        try self.init(detectorModel: loaded[0], landmarkModel: loaded[1])
    }

    /// Shortest image side faces are looked for in. Measured on the two sample portraits scaled down: under
    /// 64 pixels the detector's score falls (0.58 for Grace Hopper at 32x38, a box half outside the image at
    /// 24x28), the landmarks stray by more than 3.5% of the face's width, and a face about a fifth of the
    /// image across (the astronaut) is no longer measured at all.
    package static let minImageSide = 64

    /// Faces narrower than this (pixels) are often too small for the landmark model: the astronaut's 13-pixel
    /// face at 64x64 is not measured, Grace Hopper's 24-pixel face at 64x75 is, within 3.2% of its width.
    package static let minFaceSide: Float = 24

    /// Why faces cannot be looked for in a `width` x `height` image because it is too small; nil when it is
    /// large enough. The reason says what size works.
    package static func sizeProblem(width: Int, height: Int) -> FaceAnalysisError? {
        guard width < minImageSide || height < minImageSide else { return nil }
        return FaceAnalysisError(.imageTooSmall, "the image is \(width)x\(height) pixels, too small to find a face in: "
            + "a portrait needs at least \(minImageSide)x\(minImageSide) pixels, with the face at least about "
            + "\(Int(minFaceSide)) pixels across (larger is better); use a larger photo")
    }

    /// Every face the detector finds (score at least 0.5), ordered left to right by box centre.
    /// - Throws: `.invalidImage` for a bad buffer or size, `.imageTooSmall` for an image under `minImageSide`
    ///   on a side, `.noFace` when there is none.
    package mutating func detectFaces(bgr: [UInt8], width: Int, height: Int) throws(FaceAnalysisError) -> [FaceDetection] {
        let image = try FaceImage(bgr: bgr, width: width, height: height)
        if let problem = Self.sizeProblem(width: width, height: height) { throw problem }
        let faces = try detector.detect(image).sorted { $0.center.x < $1.center.x }
        guard !faces.isEmpty else {
            throw FaceAnalysisError(.noFace, "no face found in the \(width)x\(height) image")
        }
        return faces
    }

    /// The one face of the image, or with `number` the number-th face counted from 1, left to right.
    /// - Throws: as `detectFaces`, and `.severalFaces` (listing them) when there are several and `number`
    ///   is nil, `.noSuchFace` when `number` is out of range.
    package mutating func detectFace(bgr: [UInt8], width: Int, height: Int, number: Int? = nil) throws(FaceAnalysisError) -> FaceDetection {
        try Self.choose(detectFaces(bgr: bgr, width: width, height: height), number: number)
    }

    /// The face chosen from `faces` (ordered left to right): the only one, or the `number`-th counted from 1.
    package static func choose(_ faces: [FaceDetection], number: Int?) throws(FaceAnalysisError) -> FaceDetection {
        guard !faces.isEmpty else { throw FaceAnalysisError(.noFace, "no face found") }
        let list = faces.enumerated().map { "face \($0.offset + 1): \($0.element)" }.joined(separator: "; ")
        guard let number else {
            guard faces.count == 1 else {
                throw FaceAnalysisError(.severalFaces, "\(faces.count) faces found (numbered left to right): \(list); choose one by its number")
            }
            return faces[0]
        }
        guard number >= 1, number <= faces.count else {
            throw FaceAnalysisError(.noSuchFace, "there is no face \(number); \(faces.count) found: \(list)")
        }
        return faces[number - 1]
    }

    /// The 468 Face Mesh landmarks of `face` (a detection in this image).
    /// - Throws: `.invalidImage` for a bad buffer or size, `.noLandmarks` when the landmark model does not
    ///   see a face in the region (presence below 0.5, where MediaPipe returns nothing; the reason says so
    ///   when the face is under `minFaceSide` across).
    package mutating func landmarks(bgr: [UInt8], width: Int, height: Int, face: FaceDetection) throws(FaceAnalysisError) -> FaceLandmarkResult {
        let image = try FaceImage(bgr: bgr, width: width, height: height)
        let region = FaceRegion(detection: face)
        guard region.center.x.isFinite, region.center.y.isFinite, region.side.isFinite, region.side > 0 else {
            throw FaceAnalysisError(.noLandmarks, "the face (\(face)) has no usable box")
        }
        let (points, presence) = try landmarker.landmarks(image, region: region)
        guard presence >= FaceLandmarker.minPresence else {
            var reason = "the landmark model sees no face in the region of \(face) (presence \(presence))"
            let side = max(face.width, face.height)
            if side < Self.minFaceSide {
                reason += "; the face is only \(Int(side.rounded())) pixels across, too small to measure (it needs about "
                    + "\(Int(Self.minFaceSide)) or more): use a larger photo, or one where the face fills more of it"
            }
            throw FaceAnalysisError(.noLandmarks, reason)
        }
        return FaceLandmarkResult(points: points, presence: presence, face: face, width: width, height: height)
    }

    private static func model(_ bytes: [UInt8], label: String) throws(FaceAnalysisError) -> TFLiteModel {
        do {
            return try TFLiteModel(bytes: bytes)
        } catch {
            throw FaceAnalysisError(.invalidModel, "\(label) model: \(error)")
        }
    }
}
