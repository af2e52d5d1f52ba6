/// The chessboard distance transform, in place: each value becomes the least of itself and, for every pixel, that
/// pixel's value plus its chessboard distance (two passes, capped at 255). Seeded with 0 on the pixels measured
/// from and 255 elsewhere, it gives each pixel's distance to the nearest seed: the flat reach of a character's
/// picture (`CharacterRenderer`) and an eye's extent grown and shrunk (`CharacterEye`). `stop`, asked every 64
/// rows, leaves the transform unfinished when it answers true (the values are then not to be used).
enum ChessboardDistance {
    static func transform(_ d: UnsafeMutablePointer<UInt8>, width w: Int, height h: Int, stop: (() -> Bool)? = nil) {
        for y in 0..<h {
            if y & 63 == 0, stop?() == true { return }
            for x in 0..<w {
                let i = y * w + x
                var v = Int(d[i])
                if x > 0 { v = min(v, Int(d[i - 1]) + 1) }
                if y > 0 {
                    v = min(v, Int(d[i - w]) + 1)
                    if x > 0 { v = min(v, Int(d[i - w - 1]) + 1) }
                    if x < w - 1 { v = min(v, Int(d[i - w + 1]) + 1) }
                }
                d[i] = UInt8(min(v, 255))
            }
        }
        for y in stride(from: h - 1, through: 0, by: -1) {
            if y & 63 == 0, stop?() == true { return }
            for x in stride(from: w - 1, through: 0, by: -1) {
                let i = y * w + x
                var v = Int(d[i])
                if x < w - 1 { v = min(v, Int(d[i + 1]) + 1) }
                if y < h - 1 {
                    v = min(v, Int(d[i + w]) + 1)
                    if x < w - 1 { v = min(v, Int(d[i + w + 1]) + 1) }
                    if x > 0 { v = min(v, Int(d[i + w - 1]) + 1) }
                }
                d[i] = UInt8(min(v, 255))
            }
        }
    }
}
