import Essence2Runtime

/// BlazeFace short range, run as MediaPipe's face detection graph runs it: the whole image letterboxed
/// (aspect kept, black border) into the 128x128 input, anchors decoded, weighted non-maximum suppression,
/// and the detections mapped back to image pixels.
struct FaceDetector {
    static let inputSize = 128

    private var interpreter: TFLiteInterpreter
    private let regressorsIndex: Int
    private let scoresIndex: Int

    /// Checks that `model` has BlazeFace short range's input and outputs (1x128x128x3 in; 896x16 box values
    /// and 896 scores out, in either order).
    init(model: TFLiteModel) throws(FaceAnalysisError) {
        let size = Self.inputSize, anchors = FaceAnchors.shortRange.count
        guard model.inputShapes.count == 1, model.inputShapes[0] == [1, size, size, 3] else {
            throw FaceAnalysisError(.invalidModel, "face detector: expected one 1x\(size)x\(size)x3 input, got \(model.inputShapes)")
        }
        let counts = model.outputShapes.map { $0.reduce(1, *) }
        guard counts.count == 2,
              let regressors = counts.firstIndex(of: anchors * Self.valuesPerAnchor),
              let scores = counts.firstIndex(of: anchors) else {
            throw FaceAnalysisError(.invalidModel, "face detector: expected outputs of \(anchors)x\(Self.valuesPerAnchor) and \(anchors) values, got \(model.outputShapes)")
        }
        regressorsIndex = regressors
        scoresIndex = scores
        do {
            interpreter = try TFLiteInterpreter(model: model)
        } catch {
            throw FaceAnalysisError(.invalidModel, "face detector: \(error)")
        }
    }

    /// Every face scoring at least 0.5, in image pixels, in descending score order.
    mutating func detect(_ image: FaceImage) throws(FaceAnalysisError) -> [FaceDetection] {
        let letterbox = Self.letterbox(width: image.width, height: image.height)
        let size = Self.inputSize
        let input = image.tensor(origin: letterbox.origin, stepX: SIMD2(letterbox.side / Double(size), 0),
                                 stepY: SIMD2(0, letterbox.side / Double(size)),
                                 outputWidth: size, outputHeight: size, border: .zero, scale: 2 / 255, offset: -1)
        let outputs: [TFLiteTensor]
        do {
            outputs = try interpreter.invoke([TFLiteTensor(shape: [1, size, size, 3], values: input)])
        } catch {
            throw FaceAnalysisError(.invalidModel, "face detector failed: \(error)")
        }
        guard outputs.count == 2 else {
            throw FaceAnalysisError(.invalidModel, "face detector gave \(outputs.count) outputs; expected 2")
        }
        let raw = Self.decode(regressors: outputs[regressorsIndex].values, scores: outputs[scoresIndex].values,
                              anchors: FaceAnchors.shortRange)
        return Self.weightedSuppression(raw).map { Self.project($0, letterbox: letterbox) }
    }

    /// The square region of the image that fills the detector's input: centred on the image, as wide as its
    /// longer side; `origin` is its top-left corner in pixel-centre coordinates.
    static func letterbox(width: Int, height: Int) -> (origin: SIMD2<Double>, side: Double) {
        let side = Double(max(width, height))
        return (SIMD2(Double(width) / 2 - side / 2, Double(height) / 2 - side / 2), side)
    }

    /// A detection in normalised input coordinates, in image pixels.
    static func project(_ detection: FaceDetection, letterbox: (origin: SIMD2<Double>, side: Double)) -> FaceDetection {
        let origin = SIMD2(Float(letterbox.origin.x), Float(letterbox.origin.y)), side = Float(letterbox.side)
        return FaceDetection(x: origin.x + detection.x * side, y: origin.y + detection.y * side,
                             width: detection.width * side, height: detection.height * side,
                             keypoints: detection.keypoints.map { origin + $0 * side }, score: detection.score)
    }
}
