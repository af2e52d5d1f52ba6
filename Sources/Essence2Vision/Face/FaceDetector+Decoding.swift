#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Essence2Runtime

extension FaceDetector {
    /// Values per anchor in the regressor output: box centre x, y, width, height, then 6 keypoints (x, y).
    static let valuesPerAnchor = 16
    static let keypointCount = 6
    /// Scale of the raw box values (the input size in pixels).
    static let coordinateScale: Float = 128
    /// Raw scores are clipped to ±this before the sigmoid.
    static let scoreClip: Float = 100
    /// Detections scoring below this are dropped (MediaPipe's min_detection_confidence).
    static let minScore: Float = 0.5
    /// Boxes overlapping the best remaining one by more than this IoU are merged into it.
    static let suppressionIoU: Float = 0.3

    /// Decodes the raw outputs as MediaPipe's TensorsToDetectionsCalculator does for BlazeFace (reversed
    /// x/y order, no exponential on sizes, sigmoid scores clipped at ±100): every anchor scoring at least
    /// `minScore`, box and keypoints in normalised input coordinates (0 ... 1).
    static func decode(regressors: [Float], scores: [Float], anchors: [SIMD2<Float>],
                       minScore: Float = minScore) -> [FaceDetection] {
        let count = min(anchors.count, scores.count, regressors.count / valuesPerAnchor)
        var detections: [FaceDetection] = []
        for i in 0..<count {
            let raw = min(max(scores[i], -scoreClip), scoreClip)
            let score = 1 / (1 + exp(-raw))
            guard score >= minScore else { continue }
            let base = i * valuesPerAnchor
            let anchor = anchors[i]
            let cx = regressors[base] / coordinateScale + anchor.x
            let cy = regressors[base + 1] / coordinateScale + anchor.y
            let w = regressors[base + 2] / coordinateScale
            let h = regressors[base + 3] / coordinateScale
            guard cx.isFinite, cy.isFinite, w.isFinite, h.isFinite, w > 0, h > 0 else { continue }
            var keypoints: [SIMD2<Float>] = []
            keypoints.reserveCapacity(keypointCount)
            for k in 0..<keypointCount {
                keypoints.append(SIMD2(regressors[base + 4 + 2 * k] / coordinateScale + anchor.x,
                                       regressors[base + 5 + 2 * k] / coordinateScale + anchor.y))
            }
            detections.append(FaceDetection(x: cx - w / 2, y: cy - h / 2, width: w, height: h,
                                            keypoints: keypoints, score: score))
        }
        return detections
    }

    /// MediaPipe's weighted non-maximum suppression: repeatedly takes the best remaining detection, gathers
    /// every remaining one whose IoU with it exceeds `threshold` (itself included), and outputs their
    /// score-weighted mean box and keypoints with the best one's score. Output is in descending score order.
    static func weightedSuppression(_ detections: [FaceDetection], threshold: Float = suppressionIoU) -> [FaceDetection] {
        var remaining = detections.indices.sorted {
            detections[$0].score != detections[$1].score ? detections[$0].score > detections[$1].score : $0 < $1
        }
        var output: [FaceDetection] = []
        while let first = remaining.first {
            let best = detections[first]
            var merged: [Int] = []
            var rest: [Int] = []
            for index in remaining {
                if iou(detections[index], best) > threshold { merged.append(index) } else { rest.append(index) }
            }
            var result = best
            if !merged.isEmpty {
                var total: Float = 0
                var minCorner = SIMD2<Float>.zero, maxCorner = SIMD2<Float>.zero
                var keypoints = [SIMD2<Float>](repeating: .zero, count: best.keypoints.count)
                for index in merged {
                    let d = detections[index]
                    total += d.score
                    minCorner += d.score * SIMD2(d.x, d.y)
                    maxCorner += d.score * SIMD2(d.x + d.width, d.y + d.height)
                    for k in keypoints.indices where k < d.keypoints.count { keypoints[k] += d.score * d.keypoints[k] }
                }
                if total > 0 {
                    result.x = minCorner.x / total
                    result.y = minCorner.y / total
                    result.width = (maxCorner.x - minCorner.x) / total
                    result.height = (maxCorner.y - minCorner.y) / total
                    result.keypoints = keypoints.map { $0 / total }
                }
            }
            output.append(result)
            if rest.count == remaining.count { break }
            remaining = rest
        }
        return output
    }

    /// Intersection over union of two boxes; 0 when they do not overlap.
    static func iou(_ a: FaceDetection, _ b: FaceDetection) -> Float {
        let x0 = max(a.x, b.x), y0 = max(a.y, b.y)
        let x1 = min(a.x + a.width, b.x + b.width), y1 = min(a.y + a.height, b.y + b.height)
        guard x1 > x0, y1 > y0 else { return 0 }
        let intersection = (x1 - x0) * (y1 - y0)
        let union = a.width * a.height + b.width * b.height - intersection
        return union > 0 ? intersection / union : 0
    }
}
