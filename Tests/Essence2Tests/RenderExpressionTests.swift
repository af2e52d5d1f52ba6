import Testing
@testable import Essence2Runtime

/// Brows and gaze: what each moves, and what it leaves alone.
struct RenderExpressionTests {
    typealias F = RenderFixtures

    @Test func raisedBrowsMoveTheBrowsAndLeaveTheEyesAndMouthAlone() {
        for a in [F.grace, F.astronaut] {
            let r = Renderer(avatar: a)
            let rest = F.frame(r)
            #expect(F.difference(F.frame(r, FrameParams(pose: FacePose(browRaise: 0))), rest, width: a.width).count == 0)
            let raised = F.frame(r, FrameParams(pose: FacePose(browRaise: 1)))
            let fh = F.faceHeight(a)
            let iris = F.point(a, "right_iris_center")
            // Above the eyes the picture changes ...
            let brows = PixelRect(x: Int(iris.x - 0.1 * fh), y: Int(iris.y - 0.16 * fh), width: Int(0.2 * fh), height: Int(0.1 * fh))
            #expect(F.meanAbsDiff(raised, rest, width: a.width, brows) > 1.5, "\(a.name)")
            // ... the irises, the mouth and everything below the eyes do not.
            for side in ["right", "left"] {
                #expect(F.meanAbsDiff(raised, rest, width: a.width, F.box(F.point(a, "\(side)_iris_center"), 1.5, 1.5)) == 0)
            }
            let below = PixelRect(x: 0, y: Int(iris.y + 0.06 * fh), width: a.width, height: a.height - Int(iris.y + 0.06 * fh))
            #expect(F.meanAbsDiff(raised, rest, width: a.width, below) == 0, "\(a.name)")
        }
    }

    @Test func gazeMovesTheIrisesInsideTheEyesOnly() {
        for a in [F.grace, F.astronaut] {
            let r = Renderer(avatar: a)
            let rest = F.frame(r)
            #expect(F.difference(F.frame(r, FrameParams(pose: FacePose(gaze: .zero))), rest, width: a.width).count == 0)
            let fh = F.faceHeight(a)
            for gaze in [SIMD2<Float>(1, 0), SIMD2(-1, 0), SIMD2(0, -1)] {
                let looked = F.frame(r, FrameParams(pose: FacePose(gaze: gaze)))
                let changed = F.difference(looked, rest, width: a.width)
                #expect(changed.count > 10, "\(a.name) \(gaze)")
                // Every changed pixel lies in an eye (corner to corner around its iris).
                let eyes = ["right", "left"].map { F.box(F.point(a, "\($0)_iris_center"), 0.12 * fh, 0.04 * fh) }
                for y in changed.box.y..<changed.box.maxY {
                    for x in changed.box.x..<changed.box.maxX {
                        let i = (y * a.width + x) * 3
                        guard looked[i] != rest[i] || looked[i + 1] != rest[i + 1] || looked[i + 2] != rest[i + 2] else { continue }
                        #expect(eyes.contains { x >= $0.x && x < $0.maxX && y >= $0.y && y < $0.maxY }, "\(a.name): pixel (\(x), \(y)) outside the eyes changed")
                    }
                }
            }
            // With the lids shut the gaze shows nothing.
            let shut = F.frame(r, FrameParams(pose: FacePose(blink: 1)))
            let shutLooking = F.frame(r, FrameParams(pose: FacePose(blink: 1, gaze: SIMD2(1, 0))))
            #expect(F.difference(shut, shutLooking, width: a.width).count == 0)
        }
    }

    @Test func lookingSidewaysShiftsTheIrisThatWay() {
        let a = F.astronaut
        let r = Renderer(avatar: a)
        let fh = F.faceHeight(a)
        for side in ["right", "left"] {
            let c = F.point(a, "\(side)_iris_center")
            let eye = F.box(c, 0.06 * fh, 0.02 * fh)
            func darkCentre(_ f: [UInt8]) -> Float {
                var sum: Float = 0, weight: Float = 0
                for y in eye.y..<eye.maxY {
                    for x in eye.x..<eye.maxX {
                        let w = max(0, 140 - F.luma(f, width: a.width, x: x, y: y))
                        sum += w * Float(x); weight += w
                    }
                }
                return sum / max(weight, 1)
            }
            let right = darkCentre(F.frame(r, FrameParams(pose: FacePose(gaze: SIMD2(1, 0)))))
            let left = darkCentre(F.frame(r, FrameParams(pose: FacePose(gaze: SIMD2(-1, 0)))))
            #expect(right - left > 0.5, "\(side) iris: \(left) -> \(right)")
        }
    }
}
