import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import Essence2Runtime
@testable import Essence2Authoring

/// Characters as they are drawn (Expression 2), on 240 characters the tests draw themselves (heads of many
/// colours, eyes outlined or not, white on dark faces, dark dots, wide and tall; closed, filled or no mouths;
/// the rig's eye radius given up to 1.8 times too large, as the finder gives it): the rest frame is the
/// picture, a full blink closes each eye to one lid line in the eye box without leaving its white or iris, and
/// the mouth's motion stays at the mouth and inside the head.
@Suite struct CharacterLookTests {
    /// One drawn character: its picture (B,G,R over white, and opacity) and its exact points.
    struct Drawn {
        var width = 240, height = 280
        var bgr: [UInt8]
        var alpha: [UInt8]
        var points: CharacterPoints
        var label: String
    }

    static func draw(_ index: Int) -> Drawn {
        var rng = TestRandom(seed: UInt64(index) &* 7919 &+ 17)  // the same characters every run
        func uniform(_ a: Float, _ b: Float) -> Float { Float.random(in: a...b, using: &rng) }
        let width = 240, height = 280
        let cx: Float = 120, cy: Float = 145, radius = uniform(92, 112)
        let darkFace = index % 4 == 3
        let skin: SIMD3<Float> = darkFace ? SIMD3(uniform(10, 60), uniform(10, 60), uniform(10, 70))
            : SIMD3(uniform(60, 230), uniform(120, 235), uniform(150, 250))
        let line: SIMD3<Float> = darkFace ? SIMD3(200, 200, 200) : SIMD3(uniform(10, 40), uniform(10, 40), uniform(20, 50))
        let outline = uniform(2, 5)
        let ed = radius * uniform(0.6, 0.8)
        let eyeY = cy - 0.15 * radius
        let rx = ed * uniform(0.1, 0.22), ry = min(rx * uniform(0.6, 1.5), ed * 0.18)
        // Eye styles: 0 white with a dark outline and a pupil, 1 a dark dot, 2 white with a coloured iris and a
        // pupil, no outline (on dark faces: always a white eye).
        let style = darkFace ? 2 : index % 3
        let iris = SIMD3<Float>(uniform(60, 200), uniform(40, 160), uniform(0, 90))
        let mouthStyle: CharacterRig.MouthStyle = [.closed, .closed, .absent][index % 3 == 2 && index % 5 == 0 ? 2 : 0]
        let filled = index % 5 == 1
        let mouthY = cy + 0.45 * radius, mouthHalf = 0.28 * ed
        let brows = index % 2 == 0
        let eyes = [SIMD2(cx - ed / 2, eyeY), SIMD2(cx + ed / 2, eyeY)]
        var bgr = [UInt8](repeating: 255, count: width * height * 3)
        var alpha = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let p = SIMD2(Float(x) + 0.5, Float(y) + 0.5)
                let d = p - SIMD2(cx, cy)
                let distance = (d.x * d.x + d.y * d.y).squareRoot()
                guard distance <= radius else { continue }
                var c = distance > radius - outline ? (darkFace ? SIMD3<Float>(120, 120, 120) : line) : skin
                for eye in eyes {
                    let e = (p - eye) / SIMD2(rx, ry)
                    let r = (e.x * e.x + e.y * e.y).squareRoot()
                    switch style {
                    case 1:
                        if r <= 1 { c = line }
                    case 2:
                        if r <= 1 { c = SIMD3(245, 245, 245) }
                        let i = (p - eye) / min(rx, ry)
                        let ri = (i.x * i.x + i.y * i.y).squareRoot()
                        if ri <= 0.7 { c = iris }
                        if ri <= 0.35 { c = SIMD3(15, 15, 20) }
                    default:
                        if r <= 1 { c = r > 1 - outline / min(rx, ry) ? line : SIMD3(250, 250, 250) }
                        let i = (p - eye) / min(rx, ry)
                        if (i.x * i.x + i.y * i.y).squareRoot() <= 0.45 { c = SIMD3(20, 20, 25) }
                    }
                }
                if brows {
                    for eye in eyes where abs(p.x - eye.x) < rx && abs(p.y - (eye.y - ry - 0.12 * ed)) < 2 { c = line }
                }
                if mouthStyle == .closed, abs(p.x - cx) <= mouthHalf {
                    let t = (p.x - cx) / mouthHalf
                    let lip = mouthY + 3 * (1 - t * t)
                    let bulge = (1 - t * t).squareRoot()
                    if filled, p.y >= lip - 5 * bulge, p.y <= lip + 6 * bulge { c = SIMD3(50, 60, 200) }
                    if abs(p.y - lip) < 1.6 { c = line }
                }
                let i = y * width + x
                for k in 0..<3 { bgr[3 * i + k] = UInt8(min(max(c[k].rounded(), 0), 255)) }
                alpha[i] = 255
            }
        }
        // The rig's eye radius: about half the eye's height, as labels give it, up to 1.8 times that (the finder).
        let hint = ry * uniform(0.9, 1.8)
        let points = CharacterPoints(
            leftEye: eyes[0], rightEye: eyes[1], leftEyeRadius: hint, rightEyeRadius: hint,
            mouthLeft: SIMD2(cx - mouthHalf, mouthY), mouthRight: SIMD2(cx + mouthHalf, mouthY),
            mouthCenter: SIMD2(cx, mouthY + 3), leftBrow: nil, rightBrow: nil, mouth: mouthStyle)
        let label = "character \(index): style \(style)\(darkFace ? " on a dark face" : ""), eye \(Int(2 * rx))x\(Int(2 * ry)), "
            + "hint \(Int((10 * hint / ry).rounded()))/10 of the eye, mouth \(mouthStyle)\(filled ? " filled" : "")"
        return Drawn(bgr: bgr, alpha: alpha, points: points, label: label)
    }

    @Test func drawnCharactersRestAsDrawnBlinkToALidLineAndMoveOnlyTheirMouths() throws {
        var failures: [String] = []
        for index in 0..<240 {
            let drawn = Self.draw(index)
            let avatar = try CharacterAvatarBuilder.build(name: "drawn", bgr: drawn.bgr, alpha: drawn.alpha,
                                                          width: drawn.width, height: drawn.height,
                                                          points: drawn.points, size: (208, 360))
            let look = try #require(CharacterLook(avatar: avatar))
            var problems: [String] = []
            if look.restDiffering != 0 { problems.append("rest differs from the picture in \(look.restDiffering) pixels") }
            for (side, eye) in zip(["left", "right"], look.eyes) {
                if eye.drawing != "open" { problems.append("\(side) eye read as \(eye.drawing)"); continue }
                if eye.closedContrast < 0.15 { problems.append("\(side) closed contrast \(eye.closedContrast)") }
                if eye.eyeLeft > 0 { problems.append("\(side) eye: \(eye.eyeLeft) pixels of white or iris left") }
                if eye.lineParts != 1 || eye.lineHeight > 0.6 {
                    problems.append("\(side) eye: \(eye.lineParts) parts left, \(eye.lineHeight) of its height")
                }
            }
            if look.motionCentre > 0.6 { problems.append("motion centred \(look.motionCentre) eye distances away") }
            if look.outsideHead > 0 { problems.append("\(look.outsideHead) pixels change outside the head") }
            if !problems.isEmpty { failures.append(drawn.label + ": " + problems.joined(separator: "; ")) }
        }
        #expect(failures.isEmpty, "\(failures.count) of 240: \(failures.prefix(8).joined(separator: "\n"))")
    }

    /// The eye is measured in a window of at most an eye distance around its point, whatever radius the rig
    /// gives: a build with radii of a quarter of the frame's side (the largest a file may hold) measures the
    /// same eyes, in the same box, as one with the eyes' own radii.
    @Test func anEyeRadiusIsAHintNotTheExtent() throws {
        let drawn = Self.draw(0)
        var huge = drawn.points
        huge.leftEyeRadius = 60
        huge.rightEyeRadius = 60
        let a = try CharacterAvatarBuilder.build(name: "a", bgr: drawn.bgr, alpha: drawn.alpha, width: drawn.width,
                                                 height: drawn.height, points: drawn.points, size: (208, 360))
        let b = try CharacterAvatarBuilder.build(name: "b", bgr: drawn.bgr, alpha: drawn.alpha, width: drawn.width,
                                                 height: drawn.height, points: huge, size: (208, 360))
        let eyesA = CharacterRenderer(avatar: a).eyes, eyesB = CharacterRenderer(avatar: b).eyes
        let ed = try #require(a.character).eyeDistance
        for (x, y) in zip(eyesA, eyesB) {
            #expect(x.drawing == .open && y.drawing == .open)
            #expect(x.box == y.box, "the same eye box: \(x.box) and \(y.box)")
            #expect(Float(y.box.width) <= ed + 8 && Float(y.box.height) <= ed + 8)
        }
    }

    /// Eyes the picture draws closed (an arc) and opaque glasses get no lid; a point with nothing drawn around it
    /// (a hidden eye) neither.
    @Test func closedEyesGlassesAndHiddenEyesGetNoLid() {
        let width = 200, height = 120
        var bgr = [UInt8](repeating: 200, count: width * height * 3)
        // An arc at (50, 60), a wide black lens at (150, 60).
        for y in 0..<height {
            for x in 0..<width {
                let p = SIMD2(Float(x), Float(y))
                let arc = abs((p - SIMD2(50, 50)).squareLength().squareRoot() - 14) < 1.5 && p.y > 52
                let lens = abs(p.x - 150) < 24 && abs(p.y - 60) < 13
                if arc || lens { for k in 0..<3 { bgr[3 * (y * width + x) + k] = 15 } }
            }
        }
        let eyes = bgr.withUnsafeBufferPointer { pixels in
            [SIMD2<Float>(50, 62), SIMD2(150, 60), SIMD2(100, 20)].map {
                CharacterEye(pixels: pixels.baseAddress!, width: width, height: height, centre: $0, radius: 10,
                             eyeDistance: 100, lid: SIMD3(200, 200, 200))
            }
        }
        #expect(eyes.map(\.drawing) == [.closed, .opaque, .hidden])
        #expect(eyes.allSatisfy { !$0.closes })
    }

    /// A character frame larger than 3072x3072 pixels is refused at build (and so at load) with a reason.
    @Test func anOversizedCharacterFrameIsRefusedWithAReason() {
        let drawn = Self.draw(1)
        #expect(throws: AvatarFileError.self) {
            try CharacterAvatarBuilder.build(name: "big", bgr: drawn.bgr, alpha: drawn.alpha, width: drawn.width,
                                             height: drawn.height, points: drawn.points, size: (4096, 4096))
        }
    }
}

extension SIMD2 where Scalar == Float {
    fileprivate func squareLength() -> Float { x * x + y * y }
}

/// Destroy stops the work: a large character (2048x2880, large eyes) drawing unpaced stops within a second of
/// `stop` (its render thread exits, the frame in progress left at its next band). The CPU used after
/// `be_expression2_destroy` is measured in a process of its own: integration/c, test_expression2.c.
@Suite struct CharacterStopTests {
    @Test func stoppingALargeCharacterEndsItsWorkPromptly() throws {
        var drawn = DrawnCharacter()
        drawn.points.leftEyeRadius = 90
        drawn.points.rightEyeRadius = 90
        let avatar = try drawn.avatar(size: (2048, 2880))
        let engine = Engine(avatar: avatar)
        engine.setPacing(.unpaced)
        let speech = try SpeechFixture.samples("speech_vowels")
        _ = speech.withUnsafeBufferPointer { engine.push($0) }
        engine.endUtterance()
        usleep(400_000)  // the render thread is drawing
        let clock = SystemClock()
        let stoppedAt = clock.nanoseconds()
        engine.stop()
        #expect(engine.waitUntilStopped(deadline: stoppedAt + 1_000_000_000), "the render thread exits within 1 s")
    }
}

/// Refusals of a character's picture and points say what is wrong, in the terms the user gave them.
@Suite struct CharacterRefusalTests {
    func reason(_ body: () throws -> Void) -> String {
        do {
            try body()
            return "accepted"
        } catch let error as AvatarFileError {
            return error.reason
        } catch {
            return "\(error)"
        }
    }

    @Test func aTinyPictureATooLargeRadiusAndAnEnormousPointAreNamed() {
        let drawn = DrawnCharacter()
        let tiny = reason { _ = try CharacterAvatarBuilder.build(name: "x", bgr: [0, 0, 0], alpha: nil, width: 1, height: 1,
                                                                  points: drawn.points) }
        #expect(tiny.contains("1x1") && tiny.contains("at least 8x8"), "\(tiny)")
        var big = drawn
        big.points.leftEyeRadius = 5000
        let radius = reason { _ = try big.avatar() }
        #expect(radius.contains("left_eye_radius 5000") && radius.contains("of its pixels"), "\(radius)")
        let json = Array("""
            {"left_eye": [1e308, 170], "right_eye": [230, 170], "mouth_left": [140, 265], "mouth_right": [220, 265],
             "mouth_center": [180, 268], "mouth": "closed"}
            """.utf8)
        let point = reason { _ = try CharacterPoints.decode(json, width: 360, height: 400) }
        #expect(point.contains("left_eye") && point.contains("outside the 360x400 picture"), "\(point)")
    }
}

extension TestRandom: RandomNumberGenerator {}
