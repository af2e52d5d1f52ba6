import Essence2Runtime

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

    /// Lane-wise `Float.maximum` (the larger; a NaN in `b` gives `a`), written out so that it inlines: the
    /// standard library's generic `pointwiseMax` is called, not inlined, from the kernels.
    @inline(__always)
    static func max(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
        b.replacing(with: a, where: (a .> b) .| (b .!= b))
    }

    /// Lane-wise `Float.minimum` (the smaller; a NaN in `b` gives `a`), inlined like `max`.
    @inline(__always)
    static func min(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
        b.replacing(with: a, where: (a .< b) .| (b .!= b))
    }

    /// `values` padded with zeros to a multiple of 8 elements.
    static func padded(_ values: [Float], to count: Int) -> [Float] {
        var out = values
        out.append(contentsOf: repeatElement(0, count: Swift.max(count - values.count, 0)))
        return out
    }
}
