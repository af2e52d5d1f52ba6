import Essence2Runtime

extension FaceLandmarks {
    /// The `landmarks` section: u32 count, then per named point (sorted by name) u8 name length, the
    /// ASCII name, f32 x, f32 y; u32 count and f32 x,y pairs of the outer lip outline; the same for the
    /// inner outline; faceBox and mouthBox as four i32 each (x, y, width, height).
    func encodedSection() -> [UInt8] {
        var writer = ByteWriter()
        let names = points.keys.sorted()
        writer.u32(UInt32(names.count))
        for name in names {
            let utf8 = Array(name.utf8)
            writer.u8(UInt8(truncatingIfNeeded: utf8.count))
            writer.append(contentsOf: utf8)
            let point = points[name] ?? .zero
            writer.f32(point.x)
            writer.f32(point.y)
        }
        for outline in [lipsOuter, lipsInner] {
            writer.u32(UInt32(outline.count))
            for point in outline {
                writer.f32(point.x)
                writer.f32(point.y)
            }
        }
        for box in [faceBox, mouthBox] {
            writer.i32(Int32(truncatingIfNeeded: box.x))
            writer.i32(Int32(truncatingIfNeeded: box.y))
            writer.i32(Int32(truncatingIfNeeded: box.width))
            writer.i32(Int32(truncatingIfNeeded: box.height))
        }
        return writer.bytes
    }
}
