import Testing
@testable import Essence2Runtime

/// Inside the mouth: separate upper teeth under the gums, lower teeth on wide openings, the tongue tip on the
/// consonants made with it; and the tongue tip derived from the mouth's motion (`TongueTipTracker`).
struct RenderMouthTests {
    typealias F = RenderFixtures

    static func rest(_ a: Avatar) -> (centre: SIMD2<Float>, halfWidth: Float) {
        (F.point(a, "upper_lip_inner_center"), F.mouthWidth(a) / 2)
    }

    @Test func theUpperTeethAreSeparateTeeth() {
        let a = F.grace
        let r = Renderer(avatar: a)
        let (c, hw) = Self.rest(a)
        let open = F.frame(r, FrameParams(articulation: Articulation(jawOpen: 1)))
        // Along a row through the upper teeth: bright teeth with darker gaps between them.
        let y = Int(c.y + 0.08 * hw)
        let row = (Int(c.x - 0.55 * hw)...Int(c.x + 0.55 * hw)).map { F.luma(open, width: a.width, x: $0, y: y) }
        var dips = 0
        for i in 1..<(row.count - 1) where row[i] < row[i - 1] && row[i] <= row[i + 1] && row.max()! - row[i] > 6 { dips += 1 }
        #expect(dips >= 4 && dips <= 12, "\(dips) gaps between teeth in \(row)")
        #expect(row.max()! > 120)
    }

    /// On Grace Hopper's 90 px mouth (the astronaut's, 25 px wide, shows a band of about one pixel).
    @Test func theLowerTeethShowOnAWideOpeningOnly() {
        for a in [F.grace] {
            let r = Renderer(avatar: a)
            let (c, hw) = Self.rest(a)
            /// Runs of tooth-coloured pixels (bright, the upper teeth's hue) down the middle of the mouth,
            /// separated by the dark cavity.
            func teethRuns(_ jaw: Float) -> Int {
                let f = F.frame(r, FrameParams(articulation: Articulation(jawOpen: jaw)))
                let column = (Int(c.y)..<Int(c.y + 1.1 * hw)).map { y -> SIMD3<Float> in
                    var sum = SIMD3<Float>.zero
                    for dx in -2...2 {
                        let i = (y * a.width + Int(c.x) + dx) * 3
                        sum += SIMD3(Float(f[i]), Float(f[i + 1]), Float(f[i + 2]))
                    }
                    return sum / 5
                }
                func luma(_ p: SIMD3<Float>) -> Float { 0.114 * p.x + 0.587 * p.y + 0.299 * p.z }
                func hue(_ p: SIMD3<Float>) -> SIMD3<Float> { p / max(p.sum(), 1) }
                // The upper teeth: the brightest pixel just under the upper lip's rest position. The column ends a
                // little below the cavity's last dark pixel (the lower teeth stand just above the lower lip).
                let teeth = column.prefix(max(2, Int(0.15 * hw))).max { luma($0) < luma($1) }!
                let lastDark = column.lastIndex { luma($0) < 60 } ?? 0
                var runs = 0, inRun = false, sawDark = true
                for p in column.prefix(lastDark + max(6, Int(0.25 * hw))) {
                    let toothLike = luma(p) > 0.6 * luma(teeth) && Self.length3(hue(p) - hue(teeth)) < 0.03
                    if toothLike, !inRun, sawDark { runs += 1; inRun = true; sawDark = false }
                    if !toothLike { inRun = false }
                    if luma(p) < 60 { sawDark = true }
                }
                return runs
            }
            #expect(teethRuns(1) == 2, "\(a.name): upper and lower teeth, the cavity between")
            #expect(teethRuns(0.3) == 1, "\(a.name): only the upper teeth")
        }
    }

    @Test func theTongueTipShowsBetweenTheTeethWhenRaised() {
        for a in [F.grace, F.astronaut] {
            let r = Renderer(avatar: a)
            let (c, hw) = Self.rest(a)
            let down = F.frame(r, FrameParams(articulation: Articulation(jawOpen: 0.35)))
            let up = F.frame(r, FrameParams(articulation: Articulation(jawOpen: 0.35, tongueTip: 1)))
            let box = PixelRect(x: Int(c.x - 0.2 * hw), y: Int(c.y - 0.05 * hw), width: Int(0.4 * hw), height: Int(0.4 * hw))
            #expect(F.meanAbsDiff(up, down, width: a.width, box) > 2, "\(a.name)")
            // Nothing changes outside the opening, and a closed mouth hides the tongue.
            let changed = F.difference(up, down, width: a.width)
            #expect(changed.box.width <= Int(1.2 * hw) && changed.box.height <= Int(0.6 * hw))
            let closedDown = F.frame(r, FrameParams(articulation: Articulation(jawOpen: 0)))
            let closedUp = F.frame(r, FrameParams(articulation: Articulation(jawOpen: 0, tongueTip: 1)))
            #expect(F.difference(closedDown, closedUp, width: a.width).count == 0)
        }
    }

    static func length3(_ v: SIMD3<Float>) -> Float { (v * v).sum().squareRoot() }

    static func tongue(_ frames: [Articulation]) -> [Float] {
        var t = TongueTipTracker()
        return frames.map { t.apply(to: $0).tongueTip }
    }

    @Test func theTongueRisesInJawDipsBetweenVowelsWhenTheLipsAreFree() {
        let vowel = Articulation(jawOpen: 0.7)
        let dip = Articulation(jawOpen: 0.2)
        let free = Self.tongue([vowel, vowel, vowel, dip, dip, vowel, vowel])
        #expect(free[3] > 0.5 && free[4] > 0.8, "\(free)")
        #expect(free[0...2].allSatisfy { $0 == 0 } && free[6] < 0.3)
        // Pressed or rounded lips keep it down (p, b, m, f, v; w, oo, sh).
        let pressed = Self.tongue([vowel, vowel, Articulation(jawOpen: 0.2, lipPress: 0.8), Articulation(jawOpen: 0.1, lipPress: 1)])
        #expect(pressed.allSatisfy { $0 < 0.05 })
        let rounded = Self.tongue([vowel, vowel, Articulation(jawOpen: 0.2, lipSpread: -1), Articulation(jawOpen: 0.2, lipSpread: -0.9)])
        #expect(rounded.allSatisfy { $0 < 0.05 })
        // A steady close vowel ("ee") and silence do not raise it.
        #expect(Self.tongue([Articulation](repeating: Articulation(jawOpen: 0.2, lipSpread: 0.9), count: 20)).allSatisfy { $0 == 0 })
        #expect(Self.tongue([Articulation](repeating: .rest, count: 20)).allSatisfy { $0 == 0 })
    }
}
