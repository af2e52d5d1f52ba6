import Testing
@testable import Essence2Runtime
@testable import Essence2Vision
@testable import Essence2Authoring

/// The model-free parts of face analysis: anchors, decoding, suppression, letterbox, crop region, sampling.
@Suite struct FaceDetectorTests {
    @Test func shortRangeAnchorsAre896InMediaPipeOrder() {
        let anchors = FaceAnchors.shortRange
        #expect(anchors.count == 896)
        // 16x16 cells with 2 anchors each, row by row.
        #expect(anchors[0] == SIMD2(0.5 / 16, 0.5 / 16))
        #expect(anchors[1] == anchors[0])
        #expect(anchors[2] == SIMD2(1.5 / 16, 0.5 / 16))
        #expect(anchors[32] == SIMD2(0.5 / 16, 1.5 / 16))
        // Then 8x8 cells with 6 anchors each (three stride-16 layers share one map).
        #expect(anchors[512] == SIMD2(0.5 / 8, 0.5 / 8))
        #expect(anchors[517] == anchors[512])
        #expect(anchors[518] == SIMD2(1.5 / 8, 0.5 / 8))
        #expect(anchors[895] == SIMD2(7.5 / 8, 7.5 / 8))
    }

    @Test func decodingKeepsConfidentAnchorsWithBoxesRelativeToTheAnchor() {
        let anchors = FaceAnchors.shortRange
        var regressors = [Float](repeating: 0, count: 896 * 16)
        var scores = [Float](repeating: -10, count: 896)
        scores[600] = 2
        regressors[600 * 16 ..< 600 * 16 + 4] = [12.8, -6.4, 32, 64]
        regressors[600 * 16 + 4] = 6.4  // keypoint 0 x
        regressors[600 * 16 + 5] = -12.8  // keypoint 0 y
        scores[7] = 1000  // clipped to 100 before the sigmoid: still a finite score of 1
        regressors[7 * 16 + 2] = 10
        regressors[7 * 16 + 3] = 10
        let detections = FaceDetector.decode(regressors: regressors, scores: scores, anchors: anchors)
        #expect(detections.count == 2)
        let d = detections[1]
        let anchor = anchors[600]
        #expect(abs(d.score - 1 / (1 + 0.135_335_28)) < 1e-5)
        #expect(abs(d.width - 0.25) < 1e-6 && abs(d.height - 0.5) < 1e-6)
        #expect(abs(d.center.x - (anchor.x + 0.1)) < 1e-6 && abs(d.center.y - (anchor.y - 0.05)) < 1e-6)
        #expect(abs(d.keypoints[0].x - (anchor.x + 0.05)) < 1e-6 && abs(d.keypoints[0].y - (anchor.y - 0.1)) < 1e-6)
        #expect(d.keypoints.count == 6)
        #expect(detections[0].score == 1)
    }

    @Test func decodingDropsScoresBelowOneHalfAndEmptyBoxes() {
        var regressors = [Float](repeating: 0, count: 896 * 16)
        var scores = [Float](repeating: -0.01, count: 896)
        scores[3] = 5  // confident but zero-sized box
        regressors[10 * 16 + 2] = 10
        regressors[10 * 16 + 3] = 10
        scores[10] = 0.01
        let detections = FaceDetector.decode(regressors: regressors, scores: scores, anchors: FaceAnchors.shortRange)
        #expect(detections.count == 1)
        #expect(detections.first?.score ?? 0 > 0.5)
    }

    private func box(_ x: Float, _ y: Float, _ w: Float, _ score: Float) -> FaceDetection {
        FaceDetection(x: x, y: y, width: w, height: w, keypoints: [SIMD2(x, y), SIMD2(x + w, y)], score: score)
    }

    @Test func weightedSuppressionAveragesOverlappingBoxesByScore() {
        let a = box(0, 0, 10, 0.9), b = box(1, 1, 10, 0.6), far = box(50, 50, 10, 0.95)
        let out = FaceDetector.weightedSuppression([a, b, far])
        #expect(out.count == 2)
        #expect(out[0].score == 0.95 && abs(out[0].x - 50) < 1e-4 && abs(out[0].width - 10) < 1e-4)
        let merged = out[1]
        #expect(merged.score == 0.9)
        #expect(abs(merged.x - 0.6 / 1.5) < 1e-5 && abs(merged.y - 0.6 / 1.5) < 1e-5)
        #expect(abs(merged.width - 10) < 1e-5)
        #expect(abs(merged.keypoints[1].x - (0.9 * 10 + 0.6 * 11) / 1.5) < 1e-5)
    }

    @Test func weightedSuppressionKeepsBoxesOverlappingByAtMostThirtyPercent() {
        // IoU of two 10x10 boxes shifted by 6: 40 / 160 = 0.25.
        let out = FaceDetector.weightedSuppression([box(0, 0, 10, 0.7), box(6, 0, 10, 0.8)])
        #expect(out.count == 2)
        #expect(out.map(\.score) == [0.8, 0.7])
        #expect(FaceDetector.iou(box(0, 0, 10, 1), box(20, 0, 10, 1)) == 0)
    }

    @Test func letterboxCentresTheImageInASquareOfItsLongerSide() {
        let tall = FaceDetector.letterbox(width: 512, height: 600)
        #expect(tall.origin == SIMD2(-44, 0) && tall.side == 600)
        let wide = FaceDetector.letterbox(width: 300, height: 100)
        #expect(wide.origin == SIMD2(0, -100) && wide.side == 300)
        let projected = FaceDetector.project(box(0.5, 0.25, 0.25, 0.8), letterbox: tall)
        #expect(projected.x == -44 + 300 && projected.y == 150 && projected.width == 150)
        #expect(projected.keypoints[1] == SIMD2<Float>(-44 + 450, 150))
    }

    @Test func regionIsTheBoxLongSideTimesOneAndAHalfTurnedToLevelTheEyes() {
        var face = FaceDetection(x: 100, y: 50, width: 80, height: 60,
                                 keypoints: [SIMD2(120, 70), SIMD2(160, 70)], score: 0.9)
        let level = FaceRegion(detection: face)
        #expect(level.center == SIMD2(140, 80) && level.side == 120 && level.rotation == 0)
        face.keypoints = [SIMD2(120, 70), SIMD2(160, 110)]  // the eye on the right is lower: turned clockwise
        let turned = FaceRegion(detection: face)
        #expect(abs(turned.rotation - Float.pi / 4) < 1e-6)
        let right = turned.imagePoint(SIMD3(1, 0.5, 0.1))
        #expect(abs(right.x - (140 + 60 * 0.707_106_8)) < 1e-3 && abs(right.y - (80 + 60 * 0.707_106_8)) < 1e-3)
        #expect(abs(right.z - 12) < 1e-5)
        #expect(turned.imagePoint(SIMD3(0.5, 0.5, 0)) == SIMD3(140, 80, 0))
    }

    @Test func samplingReadsPixelsExactlyOnTheGridAndBlendsBetween() throws {
        // 2x2 B,G,R image.
        let bgr: [UInt8] = [0, 10, 200, 0, 20, 100, 0, 30, 0, 0, 40, 50]
        let image = try FaceImage(bgr: bgr, width: 2, height: 2)
        let exact = image.tensor(origin: .zero, stepX: SIMD2(1, 0), stepY: SIMD2(0, 1), outputWidth: 2, outputHeight: 2,
                                 border: .zero, scale: 1, offset: 0)
        #expect(exact == [200, 10, 0, 100, 20, 0, 0, 30, 0, 50, 40, 0])  // R,G,B
        let middle = image.tensor(origin: SIMD2(0.5, 0.5), stepX: .zero, stepY: .zero, outputWidth: 1, outputHeight: 1,
                                  border: .zero, scale: 2 / 255, offset: -1)
        #expect(abs(middle[1] - (25 * 2 / 255 - 1)) < 1e-6)  // mean of 10, 20, 30, 40
        let outside = image.tensor(origin: SIMD2(-5, -5), stepX: .zero, stepY: .zero, outputWidth: 1, outputHeight: 1,
                                   border: .zero, scale: 2 / 255, offset: -1)
        #expect(outside == [-1, -1, -1])
        let replicated = image.tensor(origin: SIMD2(7, -3), stepX: .zero, stepY: .zero, outputWidth: 1, outputHeight: 1,
                                      border: .replicate, scale: 1, offset: 0)
        #expect(replicated == [100, 20, 0])
        let edge = image.tensor(origin: SIMD2(-0.5, 0), stepX: .zero, stepY: .zero, outputWidth: 1, outputHeight: 1,
                                border: .zero, scale: 1, offset: 0)
        #expect(edge == [100, 5, 0])  // half black: 200 / 2, 10 / 2
    }

    @Test func badImageBuffersAreErrors() {
        func kind(_ bgr: [UInt8], _ w: Int, _ h: Int) -> FaceAnalysisError.Kind? {
            do {
                _ = try FaceImage(bgr: bgr, width: w, height: h)
                return nil
            } catch {
                return error.kind
            }
        }
        #expect(kind([], 0, 0) == .invalidImage)
        #expect(kind([1, 2, 3], 1, -1) == .invalidImage)
        #expect(kind([UInt8](repeating: 0, count: 11), 2, 2) == .invalidImage)
        #expect(kind([UInt8](repeating: 0, count: 3), 1 << 40, 1 << 40) == .invalidImage)
        #expect(kind([UInt8](repeating: 0, count: 3), Int.max, 2) == .invalidImage)
        #expect(kind([UInt8](repeating: 0, count: 12), 2, 2) == nil)
    }
}
