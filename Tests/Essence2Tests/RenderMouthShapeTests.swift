import Testing
@testable import Essence2Runtime

/// Issue 46's mouth shapes in the rig's geometry and the renderer's pixels: o and u drawn in and round, f/v the
/// lower lip tucked under the upper teeth, m sealed, and teeth coloured from the portrait's light. (Measured with
/// Face Mesh on `avatar poses` frames by `make mouth-shapes`.)
struct RenderMouthShapeTests {
    typealias F = RenderFixtures

    static func pose(_ name: String) -> Articulation {
        ArticulationSweep.poses.first { $0.name == name }!.articulation
    }

    /// Vertex destinations of `articulation` on a still head.
    static func shape(_ r: Renderer, _ articulation: Articulation) -> [SIMD2<Float>] {
        let rig = r.rig!
        let c = RigControls(articulation: articulation, blink: 0, gapMax: rig.gapMax, jawPerGap: rig.jawPerGap)
        let dest = UnsafeMutablePointer<SIMD2<Float>>.allocate(capacity: rig.source.count)
        defer { dest.deallocate() }
        rig.deform(c, head: .identity, parallaxShift: .zero, mask: r.mask, into: dest)
        return Array(UnsafeBufferPointer(start: dest, count: rig.source.count))
    }

    static func distance(_ p: [SIMD2<Float>], _ a: Int, _ b: Int) -> Float {
        let d = p[a] - p[b]
        return (d * d).sum().squareRoot()
    }

    @Test func aPartialPressTucksTheLowerLipAndAFullPressDoesNot() {
        #expect(RigControls.tuck(press: 0) == 0)
        #expect(RigControls.tuck(press: 0.4) == 1)
        #expect(RigControls.tuck(press: 1) == 0)
        // The model's partial presses on recorded p, b and m (0.55 and up) press the lips: no teeth between them.
        #expect(RigControls.tuck(press: 0.55) == 0 && RigControls.tuck(press: 0.64) == 0)
        let fv = RigControls(articulation: Self.pose("fv"), blink: 0, gapMax: 40, jawPerGap: 0.8)
        #expect(fv.tuck == 1 && fv.gap == 0, "f/v opens no gap of its own: the lower lip rests on the teeth")
        let m = RigControls(articulation: Self.pose("m"), blink: 0, gapMax: 40, jawPerGap: 0.8)
        #expect(m.tuck == 0 && m.gap == 0)
    }

    @Test(arguments: ["grace-hopper.imx", "astronaut.imx"])
    func roundedVowelsDrawTheCornersInAndOpenARoundHole(file: String) {
        let a = F.load(file)
        let r = Renderer(avatar: a)
        let rest = Self.shape(r, .rest)
        let width = Self.distance(rest, 61, 291)
        for (name, most) in [("o", Float(0.75)), ("u", Float(0.7))] {
            let p = Self.shape(r, Self.pose(name))
            let w = Self.distance(p, 61, 291)
            #expect(w <= most * width, "\(file) \(name): width \(w / width) of rest")
            // The opening: tall at the middle, the inner lips together at the sides.
            let opening = Self.distance(p, 13, 14)
            let sides = [(80, 88), (310, 318)].map { Self.distance(p, $0.0, $0.1) }
            #expect(sides.allSatisfy { $0 < 0.25 * opening }, "\(file) \(name): sides \(sides), middle \(opening)")
            // The lips thicken as they push forward.
            #expect(Self.distance(p, 0, 13) > Self.distance(rest, 0, 13), "\(file) \(name): upper lip")
        }
    }

    /// In the frame: o and u show a dark opening about as tall as it is wide (the 0.5 and 0.4 at least),
    /// with no tongue in it (the tongue lies low and back behind rounded lips; it filled the lower third of o).
    @Test(arguments: ["grace-hopper.imx", "astronaut.imx"])
    func roundedVowelsShowARoundDarkOpening(file: String) throws {
        let a = F.load(file)
        let r = Renderer(avatar: a)
        let mouth = try #require(r.mouth)
        let pal = mouth.palette, toLocal = try #require(r.rig).mouth.frame.toLocal
        let dark = 0.45 * (0.114 * pal.lip.x + 0.587 * pal.lip.y + 0.299 * pal.lip.z)
        let centre = (F.point(a, "upper_lip_inner_center") + F.point(a, "lower_lip_inner_center")) / 2
        let area = F.box(centre, 0.4 * F.mouthWidth(a), 0.3 * F.mouthWidth(a))
        for (name, rounder) in [("o", Float(0.5)), ("u", Float(0.4))] {
            let frame = F.frame(r, FrameParams(articulation: Self.pose(name)))
            // The opening: the dark pixels joined to the darkest one in the area (not the portrait's own shadows).
            var seed = (x: area.x, y: area.y), darkest = Float.infinity
            for y in area.y..<area.maxY {
                for x in area.x..<area.maxX {
                    let l = F.luma(frame, width: a.width, x: x, y: y)
                    if l < darkest { darkest = l; seed = (x, y) }
                }
            }
            var x0 = seed.x, x1 = seed.x, y0 = seed.y, y1 = seed.y
            var seen: Set<Int> = [seed.y * a.width + seed.x], stack = [seed]
            while let (x, y) = stack.popLast() {
                x0 = min(x0, x); x1 = max(x1, x); y0 = min(y0, y); y1 = max(y1, y)
                for (nx, ny) in [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)]
                where area.x <= nx && nx < area.maxX && area.y <= ny && ny < area.maxY
                    && !seen.contains(ny * a.width + nx) && F.luma(frame, width: a.width, x: nx, y: ny) < dark {
                    seen.insert(ny * a.width + nx); stack.append((nx, ny))
                }
            }
            try #require(darkest < dark && x1 > x0 && y1 > y0, "\(file) \(name): no dark opening")
            let width = Float(x1 - x0 + 1), height = Float(y1 - y0 + 1)
            #expect(height >= rounder * width, "\(file) \(name): the opening \(width)x\(height) pixels")
            // Inside the opening (a pixel and a half in from its edges, as the frame's lip outlines tabulate it),
            // in its lower half: the dark of the mouth or the lower teeth's edge, never the tongue (a pixel nearer
            // the tongue's colour than the cavity's and the teeth's).
            var inside = 0, tongue = 0
            for y in area.y..<area.maxY {
                for x in area.x..<area.maxX {
                    let p = toLocal.apply(SIMD2(Float(x) + 0.5, Float(y) + 0.5))
                    let k = Int(((p.x - mouth.gridStart) / mouth.step).rounded())
                    guard k >= 0, k < mouth.count else { continue }
                    let top = mouth.upper[k], bottom = mouth.lower[k]
                    guard p.y > (top + bottom) / 2, p.y < bottom - 1.5, p.y > top + 1.5 else { continue }
                    inside += 1
                    let i = (y * a.width + x) * 3
                    let c = SIMD3(Float(frame[i]), Float(frame[i + 1]), Float(frame[i + 2]))
                    func d(_ q: SIMD3<Float>) -> Float { ((c - q) * (c - q)).sum() }
                    if d(pal.tongue) < d(pal.cavity) && d(pal.tongue) < d(pal.teeth) { tongue += 1 }
                }
            }
            #expect(inside > 4 && tongue == 0, "\(file) \(name): \(tongue) of \(inside) pixels tongue-coloured")
        }
    }

    @Test(arguments: ["grace-hopper.imx", "astronaut.imx"])
    func fvTucksTheLowerLipUnderTheUpperTeeth(file: String) {
        let a = F.load(file)
        let r = Renderer(avatar: a)
        let rest = Self.shape(r, .rest)
        let fv = Self.shape(r, Self.pose("fv"))
        let lip = Self.distance(fv, 14, 17), restLip = Self.distance(rest, 14, 17)
        #expect(lip <= 0.7 * restLip, "\(file): lower lip \(lip / restLip) of rest")
        let hw = Self.distance(rest, 61, 291) / 2
        let gap = Self.distance(fv, 13, 14)
        #expect(gap > 0.02 * hw && gap < 0.15 * hw, "\(file): the teeth show in a narrow strip (\(gap / hw) half-widths)")
        // In the frame the strip is the upper teeth: across the middle of the mouth, the pixels between the lips
        // are less saturated than the lips' own there on m (closed lips: the lips' colour).
        let f = F.frame(r, FrameParams(articulation: Self.pose("fv")))
        let m = F.frame(r, FrameParams(articulation: Self.pose("m")))
        func saturation(_ frame: [UInt8], _ y: Int) -> Float {
            var total: Float = 0, n: Float = 0
            for x in Int(fv[82].x)...Int(fv[312].x) {
                let i = (y * a.width + x) * 3
                let c = [Float(frame[i]), Float(frame[i + 1]), Float(frame[i + 2])]
                total += (c.max()! - c.min()!) / max(c.max()!, 1); n += 1
            }
            return total / max(n, 1)
        }
        let y = Int(((fv[13].y + fv[14].y) / 2).rounded(.down))
        let teeth = saturation(f, y), lips = saturation(m, y)
        #expect(teeth < lips - 0.05, "\(file): saturation between the lips \(teeth), the closed lips' \(lips)")
    }

    @Test func mStaysSealed() {
        for a in [F.grace, F.astronaut] {
            let p = Self.shape(Renderer(avatar: a), Self.pose("m"))
            #expect(Self.distance(p, 13, 14) < 0.5, "\(a.name)")
        }
    }

    @Test func theLightsColourComesFromThePortraitsWhites() {
        // A 16x16 picture: a warm white patch (2 % or more of it) and mid-grey elsewhere.
        func light(_ white: SIMD3<UInt8>) -> SIMD3<Float> {
            var pixels = [UInt8](repeating: 120, count: 16 * 16 * 3)
            for i in 0..<8 { pixels[i * 3] = white.x; pixels[i * 3 + 1] = white.y; pixels[i * 3 + 2] = white.z }
            return pixels.withUnsafeBufferPointer { MouthPalette.lightColour(image: $0.baseAddress!, width: 16, height: 16) }
        }
        let warm = light(SIMD3(200, 225, 240))  // B, G, R
        #expect(warm.z > warm.x, "warm light: more red than blue, \(warm)")
        let neutral = light(SIMD3(230, 230, 230))
        #expect(abs(neutral.x - 1) < 0.01 && abs(neutral.z - 1) < 0.01)
        let clipped = light(SIMD3(255, 255, 255))  // clipped whites say nothing about the light
        #expect(abs(clipped.x - 1) < 0.01 && abs(clipped.y - 1) < 0.01)
        let green = light(SIMD3(100, 250, 100))  // a strong cast is limited
        #expect(green.y <= 1.15 && green.x >= 0.85)
    }

    @Test func closedMouthedPortraitsGetEnamelNotGreyGreen() throws {
        let r = Renderer(avatar: F.grace)
        let teeth = try #require(r.mouth).palette.teeth
        // B, G, R: red at least green at least blue (warm enamel), bright enough to read as teeth.
        #expect(teeth.z >= teeth.y && teeth.y >= teeth.x, "\(teeth)")
        #expect(0.114 * teeth.x + 0.587 * teeth.y + 0.299 * teeth.z > 150)
    }
}
