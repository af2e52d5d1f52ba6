import Testing
@testable import Essence2Runtime
@testable import Essence2Authoring

/// A picture can hold more than one face: the finder offers each (its own answer first, then the others largest
/// first) instead of one answer that averages them.
@Suite struct CharacterFacesTests {
    /// Two drawn characters on one transparent 640 x 420 picture: the drawing as it is at (0, 10), and at half its
    /// size at (440, 120).
    static func pair() -> (bgr: [UInt8], alpha: [UInt8], width: Int, height: Int, eyes: [[SIMD2<Float>]]) {
        let one = DrawnCharacter()
        let width = 640, height = 420
        var bgr = [UInt8](repeating: 255, count: width * height * 3), alpha = [UInt8](repeating: 0, count: width * height)
        let placements: [(x: Int, y: Int, k: Int)] = [(0, 10, 1), (440, 120, 2)]
        for (ox, oy, k) in placements {
            for y in 0..<(one.height / k) {
                for x in 0..<(one.width / k) {
                    var sum = SIMD4<Int>(repeating: 0)
                    for j in 0..<k {
                        for i in 0..<k {
                            let s = (y * k + j) * one.width + x * k + i
                            sum &+= SIMD4(Int(one.bgr[3 * s]), Int(one.bgr[3 * s + 1]), Int(one.bgr[3 * s + 2]), Int(one.alpha[s]))
                        }
                    }
                    let t = (oy + y) * width + ox + x
                    for c in 0..<3 { bgr[3 * t + c] = UInt8(sum[c] / (k * k)) }
                    alpha[t] = UInt8(sum[3] / (k * k))
                }
            }
        }
        let eyes = placements.map { p in
            [one.points.leftEye, one.points.rightEye].map { SIMD2(Float(p.x), Float(p.y)) + $0 / Float(p.k) }
        }
        return (bgr, alpha, width, height, eyes)
    }

    static func distance(_ a: SIMD2<Float>, _ b: SIMD2<Float>) -> Float { ((a - b) * (a - b)).sum().squareRoot() }

    @Test func twoCharactersAreOfferedAsTwoFacesTheFindersAnswerFirst() throws {
        let p = Self.pair()
        let faces = try CharacterPointFinder.faces(bgr: p.bgr, alpha: p.alpha, width: p.width, height: p.height)
        #expect(faces.count == 2, "\(faces.map { ($0.points.leftEye, $0.points.rightEye) })")
        guard faces.count == 2 else { return }
        let first = try CharacterPointFinder.find(bgr: p.bgr, alpha: p.alpha, width: p.width, height: p.height)
        #expect(faces[0] == first)
        // Each face's eyes on one of the characters, and the two faces on different characters.
        var matched: Set<Int> = []
        for face in faces.map(\.points) {
            let index = p.eyes.indices.min { Self.distance(face.leftEye, p.eyes[$0][0]) < Self.distance(face.leftEye, p.eyes[$1][0]) }!
            let eyeDistance = Self.distance(p.eyes[index][0], p.eyes[index][1])
            #expect(Self.distance(face.leftEye, p.eyes[index][0]) < 0.25 * eyeDistance)
            #expect(Self.distance(face.rightEye, p.eyes[index][1]) < 0.25 * eyeDistance)
            matched.insert(index)
        }
        #expect(matched.count == 2)
    }

    @Test func oneCharacterOrNoneIsOneFace() throws {
        let one = DrawnCharacter()
        let faces = try CharacterPointFinder.faces(bgr: one.bgr, alpha: one.alpha, width: one.width, height: one.height)
        #expect(faces.count == 1)
        let white = [UInt8](repeating: 255, count: 200 * 150 * 3)
        #expect(try CharacterPointFinder.faces(bgr: white, alpha: nil, width: 200, height: 150).count == 1)
        #expect(try CharacterPointFinder.faces(bgr: one.bgr, alpha: one.alpha, width: one.width, height: one.height,
                                               limit: 0).count == 1)
    }

    @Test func theClearedBoxGrowsByAQuarterInsideThePicture() {
        let box = CharacterPointFinder.clearingBox([SIMD2(100, 100), SIMD2(200, 100), SIMD2(150, 180)], width: 210, height: 400)
        #expect(box == PixelRect(x: 75, y: 80, width: 135, height: 120))
        #expect(CharacterPointFinder.clearingBox([], width: 10, height: 10) == nil)
        #expect(CharacterPointFinder.clearingBox([SIMD2(-50, -50), SIMD2(-40, -40), SIMD2(-45, -30)], width: 10, height: 10) == nil)
    }
}
