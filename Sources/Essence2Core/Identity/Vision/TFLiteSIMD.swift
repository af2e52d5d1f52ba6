/// Unaligned SIMD loads and stores used by the kernels.
enum TFLiteSIMD {
    @inline(__always)
    static func load(_ p: UnsafePointer<Float>) -> SIMD8<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
    }

    @inline(__always)
    static func load(_ p: UnsafeMutablePointer<Float>) -> SIMD8<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
    }

    /// Stores the first `lanes` (1...8) lanes of `v` at `p`.
    @inline(__always)
    static func store(_ v: SIMD8<Float>, _ p: UnsafeMutablePointer<Float>, lanes: Int) {
        if lanes == 8 {
            UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD8<Float>.self)
        } else {
            for i in 0..<lanes { p[i] = v[i] }
        }
    }

    /// `values` padded with zeros to a multiple of 8 elements.
    static func padded(_ values: [Float], to count: Int) -> [Float] {
        var out = values
        out.append(contentsOf: repeatElement(0, count: Swift.max(count - values.count, 0)))
        return out
    }
}
