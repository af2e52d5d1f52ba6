#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Essence2Runtime

/// MediaPipe Face Mesh's landmark model (468 points, no iris refinement), run on the rotation-corrected
/// crop of a detected face as MediaPipe's face_landmark_cpu graph runs it.
package struct FaceLandmarker {
    static let inputSize = 192
    package static let pointCount = 468
    /// Below this face-presence probability MediaPipe drops the landmarks.
    static let minPresence: Float = 0.5

    private var interpreter: TFLiteInterpreter
    private let pointsIndex: Int
    private let presenceIndex: Int

    /// Checks that `model` has Face Mesh's input (1x192x192x3) and outputs (1404 values and 1).
    init(model: TFLiteModel) throws(FaceAnalysisError) {
        let size = Self.inputSize
        guard model.inputShapes.count == 1, model.inputShapes[0] == [1, size, size, 3] else {
            throw FaceAnalysisError(.invalidModel, "face landmarks: expected one 1x\(size)x\(size)x3 input, got \(model.inputShapes)")
        }
        let counts = model.outputShapes.map { $0.reduce(1, *) }
        guard counts.count == 2, let points = counts.firstIndex(of: 3 * Self.pointCount), let presence = counts.firstIndex(of: 1) else {
            throw FaceAnalysisError(.invalidModel, "face landmarks: expected outputs of \(3 * Self.pointCount) values and 1, got \(model.outputShapes)")
        }
        pointsIndex = points
        presenceIndex = presence
        do {
            interpreter = try TFLiteInterpreter(model: model)
        } catch {
            throw FaceAnalysisError(.invalidModel, "face landmarks: \(error)")
        }
    }

    /// The 468 points (x, y in image pixels, z on x's scale, negative toward the camera) and the model's
    /// face-presence probability.
    mutating func landmarks(_ image: FaceImage, region: FaceRegion) throws(FaceAnalysisError) -> (points: [SIMD3<Float>], presence: Float) {
        let size = Self.inputSize
        let axes = region.axes
        let side = Double(region.side)
        let center = SIMD2(Double(region.center.x), Double(region.center.y))
        let origin = center - side / 2 * axes.x - side / 2 * axes.y
        let step = side / Double(size)
        let input = image.tensor(origin: origin, stepX: step * axes.x, stepY: step * axes.y,
                                 outputWidth: size, outputHeight: size, border: .replicate, scale: 1 / 255, offset: 0)
        let outputs: [TFLiteTensor]
        do {
            outputs = try interpreter.invoke([TFLiteTensor(shape: [1, size, size, 3], values: input)])
        } catch {
            throw FaceAnalysisError(.invalidModel, "face landmark model failed: \(error)")
        }
        guard outputs.count == 2, outputs[pointsIndex].values.count == 3 * Self.pointCount,
              let logit = outputs[presenceIndex].values.first else {
            throw FaceAnalysisError(.invalidModel, "face landmark model gave outputs of the wrong size")
        }
        let raw = outputs[pointsIndex].values
        let scale = 1 / Float(size)
        var points: [SIMD3<Float>] = []
        points.reserveCapacity(Self.pointCount)
        for i in 0..<Self.pointCount {
            points.append(region.imagePoint(SIMD3(raw[3 * i], raw[3 * i + 1], raw[3 * i + 2]) * scale))
        }
        let presence = 1 / (1 + exp(-min(max(logit, -100), 100)))
        return (points, presence)
    }
}
