import Testing
@testable import Essence2Runtime
@testable import Essence2Vision
@testable import Essence2Authoring

/// Avatars and frame helpers for the renderer tests: the shipped avatars (read from `avatars/*.imx` in this
/// repository) and measurements on B,G,R frames.
enum RenderFixtures {
    static let root: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)  // Tests/Essence2Tests/<file>
        return parts.joined(separator: "/")
    }()

    static func load(_ file: String) -> Avatar {
        do {
            return try AvatarFile.read(path: root + "/avatars/" + file)
        } catch {
            fatalError("the shipped avatar \(file) must load: \(error)")
        }
    }

    /// Grace Hopper: closed mouth, glasses.
    static let grace = load("grace-hopper.imx")
    /// Eileen Collins: photographed smiling with the lips apart and teeth showing.
    static let astronaut = load("astronaut.imx")

    /// Renders one frame into a new array.
    static func frame(_ r: Renderer, _ p: FrameParams = FrameParams(), mode: DisplayMode = .full) -> [UInt8] {
        let (w, h) = r.frameSize(mode)
        var out = [UInt8](repeating: 0xAB, count: w * h * 3)
        out.withUnsafeMutableBytes { r.render(p, mode: mode, into: $0) }
        return out
    }

    static func luma(_ f: [UInt8], width: Int, x: Int, y: Int) -> Float {
        let i = (y * width + x) * 3
        return 0.114 * Float(f[i]) + 0.587 * Float(f[i + 1]) + 0.299 * Float(f[i + 2])
    }

    /// Mean luminance over `rect` of a frame `width` pixels wide.
    static func meanLuma(_ f: [UInt8], width: Int, _ rect: PixelRect) -> Float {
        var sum: Float = 0
        for y in rect.y..<rect.maxY { for x in rect.x..<rect.maxX { sum += luma(f, width: width, x: x, y: y) } }
        return sum / Float(max(rect.width * rect.height, 1))
    }

    /// Mean absolute difference of two frames over `rect`, all channels.
    static func meanAbsDiff(_ a: [UInt8], _ b: [UInt8], width: Int, _ rect: PixelRect) -> Float {
        var sum = 0
        for y in rect.y..<rect.maxY {
            for x in rect.x..<rect.maxX {
                let i = (y * width + x) * 3
                for c in 0..<3 { sum += abs(Int(a[i + c]) - Int(b[i + c])) }
            }
        }
        return Float(sum) / Float(max(rect.width * rect.height * 3, 1))
    }

    /// Where two equal-sized frames differ: the number of differing pixels and their bounding box.
    static func difference(_ a: [UInt8], _ b: [UInt8], width: Int) -> (count: Int, box: PixelRect) {
        var n = 0, x0 = Int.max, y0 = Int.max, x1 = -1, y1 = -1
        for i in stride(from: 0, to: min(a.count, b.count), by: 3)
        where a[i] != b[i] || a[i + 1] != b[i + 1] || a[i + 2] != b[i + 2] {
            n += 1
            let x = (i / 3) % width, y = (i / 3) / width
            x0 = min(x0, x); x1 = max(x1, x); y0 = min(y0, y); y1 = max(y1, y)
        }
        if a.count != b.count { n += 1 }
        return (n, n == 0 ? PixelRect(x: 0, y: 0, width: 0, height: 0) : PixelRect(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1))
    }

    /// Count of pixels darker than `threshold` in `rect`.
    static func darkPixels(_ f: [UInt8], width: Int, _ rect: PixelRect, below threshold: Float) -> Int {
        var n = 0
        for y in rect.y..<rect.maxY { for x in rect.x..<rect.maxX where luma(f, width: width, x: x, y: y) < threshold { n += 1 } }
        return n
    }

    /// A named landmark point.
    static func point(_ a: Avatar, _ name: String) -> SIMD2<Float> { a.landmarks.points[name] ?? .zero }

    /// A box of half-size `rx` x `ry` around `c`.
    static func box(_ c: SIMD2<Float>, _ rx: Float, _ ry: Float) -> PixelRect {
        PixelRect(x: Int(c.x - rx), y: Int(c.y - ry), width: Int(2 * rx), height: Int(2 * ry))
    }

    /// Forehead top to chin.
    static func faceHeight(_ a: Avatar) -> Float { point(a, "chin").y - point(a, "forehead_top").y }

    static func mouthWidth(_ a: Avatar) -> Float { point(a, "mouth_corner_left").x - point(a, "mouth_corner_right").x }
}

/// The fixtures themselves are what the renderer expects of an avatar.
struct RenderFixturesTests {
    @Test func shippedAvatarsCarryTheMediaPipeMeshTheRendererRigs() {
        for a in [RenderFixtures.grace, RenderFixtures.astronaut] {
            #expect(a.mesh.points.count == 478)
            #expect(a.mesh.triangles.count > 800)
            #expect(a.pixels.count == a.width * a.height * 3)
            #expect(Renderer(avatar: a).rig != nil)
        }
    }
}
