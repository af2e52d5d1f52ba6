/// The kernels' 8-lane vector helpers: unaligned loads and stores, and min / max that inline.
package enum NeuralSIMD {
    /// Lanes per vector: output channels go through the GEMM and the depthwise kernel in blocks of this many.
    package static let width = 8

    @inlinable @inline(__always)
    package static func load(_ p: UnsafePointer<Float>) -> SIMD8<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
    }

    @inlinable @inline(__always)
    package static func load(_ p: UnsafeMutablePointer<Float>) -> SIMD8<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
    }

    /// Stores the first `lanes` (1...8) lanes of `v` at `p`.
    @inlinable @inline(__always)
    package static func store(_ v: SIMD8<Float>, _ p: UnsafeMutablePointer<Float>, lanes: Int) {
        if lanes == 8 {
            UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD8<Float>.self)
        } else {
            for i in 0..<lanes { p[i] = v[i] }
        }
    }

    /// Lane-wise `Float.maximum` (the larger; a NaN in `b` gives `a`), written out so that it inlines: the
    /// standard library's generic `pointwiseMax` is called, not inlined, from the kernels.
    @inlinable @inline(__always)
    package static func max(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
        b.replacing(with: a, where: (a .> b) .| (b .!= b))
    }

    /// Lane-wise `Float.minimum` (the smaller; a NaN in `b` gives `a`), inlined like `max`.
    @inlinable @inline(__always)
    package static func min(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
        b.replacing(with: a, where: (a .< b) .| (b .!= b))
    }

    /// `values` padded with zeros to `count` elements (unchanged when already as long).
    package static func padded(_ values: [Float], to count: Int) -> [Float] {
        var out = values
        out.append(contentsOf: repeatElement(0, count: Swift.max(count - values.count, 0)))
        return out
    }

    /// `count` rounded up to a whole number of vectors.
    @inlinable @inline(__always)
    package static func roundedUp(_ count: Int) -> Int { (count + 7) / 8 * 8 }
}
