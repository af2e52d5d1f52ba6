extension FaceRig {
    /// The mesh triangles the warp can use: indices among the first `vertexCount` points, no duplicates, none
    /// inside the mouth or eye openings, and without the spurious triangles that close a cycle of three
    /// already-shared edges (the reconstructed tessellation has a couple of those, overlapping their
    /// neighbours beside the nose).
    static func cleanTriangles(_ raw: [SIMD3<UInt16>], vertexCount: Int) -> [SIMD3<Int32>] {
        let holes: [Set<Int>] = [
            Set(MediaPipeFace.upperInnerLip + MediaPipeFace.lowerInnerLip),
            Set(MediaPipeFace.rightEye.contour),
            Set(MediaPipeFace.leftEye.contour),
        ]
        var seen = Set<SIMD3<Int32>>()
        var tris: [SIMD3<Int32>] = []
        for t in raw {
            let a = Int(t.x), b = Int(t.y), c = Int(t.z)
            guard a < vertexCount, b < vertexCount, c < vertexCount, a != b, b != c, a != c else { continue }
            if holes.contains(where: { $0.contains(a) && $0.contains(b) && $0.contains(c) }) { continue }
            let s = [a, b, c].sorted()
            let key = SIMD3(Int32(s[0]), Int32(s[1]), Int32(s[2]))
            if seen.insert(key).inserted { tris.append(SIMD3(Int32(a), Int32(b), Int32(c))) }
        }
        func edgeKey(_ p: Int32, _ q: Int32) -> Int64 { Int64(min(p, q)) << 32 | Int64(max(p, q)) }
        var uses: [Int64: Int] = [:]
        for t in tris {
            for (p, q) in [(t.x, t.y), (t.y, t.z), (t.z, t.x)] { uses[edgeKey(p, q), default: 0] += 1 }
        }
        return tris.filter { t in
            ![(t.x, t.y), (t.y, t.z), (t.z, t.x)].allSatisfy { uses[edgeKey($0.0, $0.1), default: 0] >= 3 }
        }
    }
}
