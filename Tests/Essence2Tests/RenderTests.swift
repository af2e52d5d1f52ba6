import Testing
@testable import Essence2Runtime
@testable import Essence2Vision
@testable import Essence2Authoring

/// The renderer: what the frames show for each articulation and pose, and what they never touch.
@Suite struct RenderTests {
    typealias F = RenderFixtures

    @Test func restWithNeutralPoseReproducesAClosedMouthedPortraitExactly() {
        let a = F.grace
        let frame = F.frame(Renderer(avatar: a))
        let d = F.difference(frame, a.pixels, width: a.width)
        #expect(d.count == 0, "differs in \(d.box)")
    }

    @Test func restClosesTheLipsOfAPortraitPhotographedWithTheMouthOpen() {
        let a = F.astronaut
        let r = Renderer(avatar: a)
        let rest = F.frame(r)
        // Between the lips, where the photo shows teeth, rest shows lips: darker, and nothing as bright as teeth.
        let c = (F.point(a, "upper_lip_inner_center") + F.point(a, "lower_lip_inner_center")) / 2
        let gap = F.box(c, 0.25 * F.mouthWidth(a), 2)
        #expect(F.meanLuma(rest, width: a.width, gap) < F.meanLuma(a.pixels, width: a.width, gap) - 20)
        // Everything away from the mouth and jaw is the photograph.
        let fh = F.faceHeight(a)
        let above = PixelRect(x: 0, y: 0, width: a.width, height: Int(F.point(a, "nose_tip").y - 0.05 * fh))
        #expect(F.meanAbsDiff(rest, a.pixels, width: a.width, above) == 0)
        #expect(F.meanAbsDiff(rest, a.pixels, width: a.width, PixelRect(x: 0, y: 0, width: a.width, height: a.height)) < 1)
    }

    @Test func openJawDarkensTheMouthInteriorAndShowsTeeth() {
        for a in [F.grace, F.astronaut] {
            let r = Renderer(avatar: a)
            let closed = F.frame(r)
            let open = F.frame(r, FrameParams(articulation: Articulation(jawOpen: 1)))
            let lip = F.point(a, "upper_lip_inner_center")
            let fh = F.faceHeight(a)
            // Down the centre of the mouth: a dark cavity where the closed mouth has lips and skin ...
            let column = PixelRect(x: Int(lip.x) - 1, y: Int(lip.y - 0.03 * fh), width: 3, height: Int(0.2 * fh))
            let darkOpen = F.darkPixels(open, width: a.width, column, below: 45)
            #expect(darkOpen >= Int(0.03 * fh) * 3, "\(a.name)")
            #expect(F.darkPixels(closed, width: a.width, column, below: 45) == 0, "\(a.name)")
            // ... and above the cavity the upper teeth, much brighter than it.
            var firstDark = column.y
            while firstDark < column.maxY, F.luma(open, width: a.width, x: Int(lip.x), y: firstDark) >= 45 { firstDark += 1 }
            let teeth = (column.y..<firstDark).map { F.luma(open, width: a.width, x: Int(lip.x), y: $0) }.max() ?? 0
            #expect(teeth > 110, "\(a.name)")
        }
    }

    @Test func openJawMovesTheChinDown() {
        let a = F.grace
        let r = Renderer(avatar: a)
        let open = F.frame(r, FrameParams(articulation: Articulation(jawOpen: 1)))
        let chin = F.point(a, "chin")
        let fh = F.faceHeight(a)
        // Find the vertical shift that best matches a patch around the chin of the portrait in the open frame.
        let patch = F.box(chin - SIMD2(0, 0.04 * fh), 0.1 * fh, 0.04 * fh)
        var best = (shift: 0, cost: Float.infinity)
        for s in 0...Int(0.2 * fh) {
            var cost: Float = 0
            for y in patch.y..<patch.maxY {
                for x in patch.x..<patch.maxX {
                    cost += abs(F.luma(open, width: a.width, x: x, y: y + s) - F.luma(a.pixels, width: a.width, x: x, y: y))
                }
            }
            if cost < best.cost { best = (s, cost) }
        }
        #expect(Float(best.shift) > 0.07 * fh)
    }

    @Test func pressedLipsStayClosedEvenWithTheJawOpen() {
        for a in [F.grace, F.astronaut] {
            let r = Renderer(avatar: a)
            let rest = F.frame(r)
            let pressed = F.frame(r, FrameParams(articulation: Articulation(jawOpen: 1, lipPress: 1)))
            let open = F.frame(r, FrameParams(articulation: Articulation(jawOpen: 1)))
            let mouth = a.landmarks.mouthBox
            let darkRest = F.darkPixels(rest, width: a.width, mouth, below: 45)
            let darkPressed = F.darkPixels(pressed, width: a.width, mouth, below: 45)
            let darkOpen = F.darkPixels(open, width: a.width, mouth, below: 45)
            #expect(darkOpen > darkRest + mouth.width * mouth.height / 20)
            #expect(darkPressed <= darkRest + mouth.width / 2)
        }
    }

    @Test func silenceClosesTheLipsWhateverTheLipShape() {
        let a = F.grace
        let r = Renderer(avatar: a)
        let rest = F.frame(r)
        for spread in [Float(-1), 1] {
            let f = F.frame(r, FrameParams(articulation: Articulation(jawOpen: 0, lipSpread: spread)))
            let mouth = a.landmarks.mouthBox
            #expect(F.darkPixels(f, width: a.width, mouth, below: 45) <= F.darkPixels(rest, width: a.width, mouth, below: 45) + mouth.width / 2)
        }
    }

    /// Width of the dark mouth opening: the most dark pixels (luma under 60: cavity and shadowed teeth) in any
    /// row around the mouth.
    static func openingWidth(_ f: [UInt8], _ a: Avatar) -> Int {
        let lip = F.point(a, "upper_lip_inner_center")
        let w = Int(F.mouthWidth(a)), fh = F.faceHeight(a)
        var widest = 0
        for y in Int(lip.y)..<Int(lip.y + 0.15 * fh) {
            widest = max(widest, (Int(lip.x) - w..<Int(lip.x) + w).filter { F.luma(f, width: a.width, x: $0, y: y) < 60 }.count)
        }
        return widest
    }

    @Test func spreadLipsMakeAWiderMouthAndRoundedLipsANarrowerOne() {
        for a in [F.grace, F.astronaut] {
            let r = Renderer(avatar: a)
            let neutral = Self.openingWidth(F.frame(r, FrameParams(articulation: Articulation(jawOpen: 0.7))), a)
            let spread = Self.openingWidth(F.frame(r, FrameParams(articulation: Articulation(jawOpen: 0.7, lipSpread: 1))), a)
            let round = Self.openingWidth(F.frame(r, FrameParams(articulation: Articulation(jawOpen: 0.7, lipSpread: -1))), a)
            #expect(spread >= neutral + 2, "\(a.name)")
            #expect(round < neutral - Int(0.15 * F.mouthWidth(a)), "\(a.name)")
        }
    }

    @Test func blinkClosesTheEyesAndTouchesNothingElse() {
        for a in [F.grace, F.astronaut] {
            let r = Renderer(avatar: a)
            let rest = F.frame(r)
            #expect(F.difference(F.frame(r, FrameParams(pose: FacePose(blink: 0))), rest, width: a.width).count == 0)
            let shut = F.frame(r, FrameParams(pose: FacePose(blink: 1)))
            let fh = F.faceHeight(a)
            for side in ["right", "left"] {
                let eye = F.box(F.point(a, "\(side)_iris_center"), 0.035 * fh, 0.02 * fh)
                #expect(F.meanAbsDiff(shut, rest, width: a.width, eye) > 8)
            }
            // Only the eye band changes.
            let y0 = Int(F.point(a, "right_iris_center").y - 0.12 * fh), y1 = Int(F.point(a, "right_iris_center").y + 0.15 * fh)
            let above = PixelRect(x: 0, y: 0, width: a.width, height: y0)
            let below = PixelRect(x: 0, y: y1, width: a.width, height: a.height - y1)
            #expect(F.meanAbsDiff(shut, rest, width: a.width, above) == 0)
            #expect(F.meanAbsDiff(shut, rest, width: a.width, below) == 0)
        }
    }

    @Test func closedLidsHideTheIris() {
        let a = F.astronaut
        let r = Renderer(avatar: a)
        let shut = F.frame(r, FrameParams(pose: FacePose(blink: 1)))
        for side in ["right", "left"] {
            let iris = F.box(F.point(a, "\(side)_iris_center"), 1.5, 1.5)
            // The dark iris gives way to lid skin.
            #expect(F.meanLuma(shut, width: a.width, iris) > F.meanLuma(a.pixels, width: a.width, iris) + 25)
        }
    }

    /// Pixels that the head mask leaves still and that lie well away from the face.
    static func stillArea(_ a: Avatar) -> (Int, Int) -> Bool {
        let fb = a.landmarks.faceBox
        let fh = F.faceHeight(a)
        let margin = Int(0.45 * fh)
        return { x, y in
            let nearFace = x > fb.x - margin && x < fb.maxX + margin && y > fb.y - 2 * margin && y < fb.maxY + margin
            let masked = a.headMask.isEmpty ? false : a.headMask[y * a.width + x] != 0
            return !nearFace && !masked
        }
    }

    @Test func pixelsOutsideTheHeadRegionNeverChange() {
        for a in [F.grace, F.astronaut] {
            let r = Renderer(avatar: a)
            let still = Self.stillArea(a)
            let idle = IdleMotion(seed: 3)
            var poses = (0..<40).map { idle.pose(at: $0 * 37) }
            poses.append(FacePose(headRoll: 1, headShift: SIMD2(500, -500), headYaw: 9, headPitch: -9, blink: 3, breath: 7))
            poses.append(FacePose(headRoll: .nan, headShift: SIMD2(.infinity, .nan), headYaw: .nan, headPitch: .infinity, blink: .nan, breath: -.infinity))
            for (i, pose) in poses.enumerated() {
                let art = Articulation(jawOpen: Float(i % 5) / 4, lipSpread: Float(i % 3) - 1, lipPress: i % 7 == 0 ? 1 : 0)
                let f = F.frame(r, FrameParams(articulation: art, pose: pose))
                var changed = 0
                for y in 0..<a.height {
                    for x in 0..<a.width where still(x, y) {
                        let k = (y * a.width + x) * 3
                        if f[k] != a.pixels[k] || f[k + 1] != a.pixels[k + 1] || f[k + 2] != a.pixels[k + 2] { changed += 1 }
                    }
                }
                #expect(changed == 0, "pose \(i)")
            }
        }
    }

    @Test func frameMemoryReusedFromTheLastFrameGivesTheSameBytesAsFreshMemory() {
        // The engine renders into recycled buffers and restores only what the last frame drew there.
        for a in [F.grace, F.astronaut] {
            let r = Renderer(avatar: a)
            let idle = IdleMotion(seed: 11)
            for mode in DisplayMode.allCases {
                let (w, h) = r.frameSize(mode)
                var reused = [UInt8](repeating: 0x5A, count: w * h * 3)
                var drawn: DrawnArea?
                for i in 0..<30 {
                    // Large head motion, none, and mouth-only changes, so the drawn rectangle grows and shrinks.
                    var pose = idle.pose(at: i * 53)
                    if i % 7 == 3 { pose = FacePose(headRoll: 0, headShift: .zero, headYaw: 0, headPitch: 0, blink: 0, breath: 0) }
                    if i % 11 == 5 { pose.headShift = SIMD2(6, -4) }
                    if i % 5 == 2 { pose.gaze = SIMD2(0.8, -0.3); pose.browRaise = 0.7 }
                    let params = FrameParams(articulation: Articulation(jawOpen: Float(i % 6) / 5, lipSpread: 0, lipPress: 0,
                                                                        tongueTip: Float(i % 3) / 2), pose: pose)
                    drawn = reused.withUnsafeMutableBytes { r.render(params, mode: mode, into: $0, over: drawn) }
                    var fresh = [UInt8](repeating: 0, count: w * h * 3)
                    fresh.withUnsafeMutableBytes { r.render(params, mode: mode, into: $0) }
                    #expect(reused == fresh, "\(a.name) \(mode) frame \(i)")
                }
            }
        }
    }

    @Test func headModeIsTheSquareHeadBoxCropOfTheFullFrame() {
        for a in [F.grace, F.astronaut] {
            let r = Renderer(avatar: a)
            let (w, h) = r.frameSize(.head)
            #expect(w == a.headBox.width && h == a.headBox.height && w == h)
            #expect(r.frameSize(.full) == (a.width, a.height))
            let p = FrameParams(articulation: Articulation(jawOpen: 0.8, lipSpread: 0.3),
                                pose: FacePose(headRoll: 0.02, headShift: SIMD2(1.5, -1), headYaw: 0.4, blink: 0.6, breath: 0.5))
            let full = F.frame(r, p)
            let head = F.frame(r, p, mode: .head)
            var crop: [UInt8] = []
            for y in a.headBox.y..<a.headBox.maxY {
                let row = (y * a.width + a.headBox.x) * 3
                crop += full[row..<(row + w * 3)]
            }
            #expect(F.difference(head, crop, width: w).count == 0)
        }
    }

    @Test func framesDependOnlyOnTheirParameters() {
        let a = F.grace
        let r = Renderer(avatar: a)
        let p = FrameParams(articulation: Articulation(jawOpen: 0.6), pose: IdleMotion(seed: 1).pose(at: 10))
        let first = F.frame(r, p)
        _ = F.frame(r, FrameParams(articulation: Articulation(jawOpen: 1, lipSpread: -1), pose: FacePose(headRoll: -0.04, blink: 1)))
        _ = F.frame(r, p, mode: .head)
        #expect(F.difference(F.frame(r, p), first, width: a.width).count == 0)
        #expect(F.difference(F.frame(Renderer(avatar: a), p), first, width: a.width).count == 0)
    }

    @Test func tinyMotionsChangeTheFrameOnlySlightly() {
        // A crack between triangles or a mismatch at the edge of the moving region would show as a large
        // difference somewhere; tiny motions must keep every pixel close to the portrait.
        for a in [F.grace, F.astronaut] {
            let r = Renderer(avatar: a)
            let rest = F.frame(r)
            let tiny = [
                FrameParams(pose: FacePose(headShift: SIMD2(0.01, 0.01))),
                FrameParams(pose: FacePose(headRoll: 0.0001, headYaw: 0.002, headPitch: 0.002, breath: 0.01)),
                FrameParams(articulation: Articulation(jawOpen: 0.003, lipSpread: 0.01, lipPress: 0.01), pose: FacePose(blink: 0.003)),
            ]
            // Where lips photographed apart are closed, the upper and lower lip meet along a seam, which may
            // shift by a pixel; elsewhere the map is continuous.
            let seamTolerance = r.rig!.mouth.photographedGapMax > 0 ? 48 : 12
            let mouth = a.landmarks.mouthBox
            for p in tiny {
                let f = F.frame(r, p)
                var worst = 0, at = 0
                for i in 0..<f.count where abs(Int(f[i]) - Int(rest[i])) > worst {
                    let x = (i / 3) % a.width, y = (i / 3) / a.width
                    let inMouth = x >= mouth.x && x < mouth.maxX && y >= mouth.y && y < mouth.maxY
                    let d = abs(Int(f[i]) - Int(rest[i]))
                    if d > (inMouth ? seamTolerance : 12) { worst = d; at = i / 3 }
                }
                #expect(worst == 0, "\(a.name) \(p) at x \(at % a.width) y \(at / a.width)")
            }
        }
    }

    @Test func smallPoseStepsMoveTheHeadSmoothly() {
        // Consecutive idle frames differ little: no jumps.
        let a = F.grace
        let r = Renderer(avatar: a)
        let idle = IdleMotion(seed: 9)
        var previous = F.frame(r, FrameParams(pose: idle.pose(at: 0)))
        let all = PixelRect(x: 0, y: 0, width: a.width, height: a.height)
        for i in 1..<25 {
            var pose = idle.pose(at: i)
            pose.blink = 0
            let f = F.frame(r, FrameParams(pose: pose))
            #expect(F.meanAbsDiff(f, previous, width: a.width, all) < 1.5)
            previous = f
        }
    }

    @Test func rendersWithoutAMeshOrWithBrokenInput() {
        let g = F.grace
        var bare = g
        bare.mesh = FaceMesh(points: [], triangles: [])
        bare.headMask = []
        let r = Renderer(avatar: bare)
        #expect(F.difference(F.frame(r), g.pixels, width: g.width).count == 0)
        let moved = F.frame(r, FrameParams(articulation: Articulation(jawOpen: 1), pose: FacePose(headShift: SIMD2(2, 0))))
        #expect(F.difference(moved, g.pixels, width: g.width).count > 1000)
        #expect(moved.count == g.pixels.count)

        var tiny = g
        tiny.width = 3; tiny.height = 2
        tiny.pixels = [1, 2, 3]
        tiny.headBox = PixelRect(x: 5, y: 5, width: 10, height: 10)
        let t = Renderer(avatar: tiny)
        #expect(t.frameSize(.full) == (3, 2))
        #expect(t.frameSize(.head).width <= 3)
        _ = F.frame(t, FrameParams(articulation: Articulation(jawOpen: 1), pose: FacePose(headShift: SIMD2(1, 1))))
        _ = F.frame(t, FrameParams(), mode: .head)

        var broken = g
        broken.mesh.points[13] = SIMD3(.nan, 0, 0)
        let b = Renderer(avatar: broken)
        #expect(F.frame(b).count == g.pixels.count)
    }
}
