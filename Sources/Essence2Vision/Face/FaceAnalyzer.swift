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

    /// Every face the detector finds (score at least 0.5), ordered left to right by box centre.
    /// - Throws: `.invalidImage` for a bad buffer or size, `.noFace` when there is none.
    package mutating func detectFaces(bgr: [UInt8], width: Int, height: Int) throws(FaceAnalysisError) -> [FaceDetection] {
        let image = try FaceImage(bgr: bgr, width: width, height: height)
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
    ///   see a face in the region (presence below 0.5, where MediaPipe returns nothing).
    package mutating func landmarks(bgr: [UInt8], width: Int, height: Int, face: FaceDetection) throws(FaceAnalysisError) -> FaceLandmarkResult {
        let image = try FaceImage(bgr: bgr, width: width, height: height)
        let region = FaceRegion(detection: face)
        guard region.center.x.isFinite, region.center.y.isFinite, region.side.isFinite, region.side > 0 else {
            throw FaceAnalysisError(.noLandmarks, "the face (\(face)) has no usable box")
        }
        let (points, presence) = try landmarker.landmarks(image, region: region)
        guard presence >= FaceLandmarker.minPresence else {
            throw FaceAnalysisError(.noLandmarks, "the landmark model sees no face in the region of \(face) (presence \(presence))")
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
