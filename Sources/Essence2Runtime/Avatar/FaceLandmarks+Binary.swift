extension FaceLandmarks {
    /// Decodes a `landmarks` section; nil with a reason when it is malformed. Counts are checked against the
    /// bytes that remain before anything is allocated.
    static func decodeSection(_ bytes: [UInt8]) -> Result<FaceLandmarks, AvatarFileError> {
        func bad(_ what: String) -> Result<FaceLandmarks, AvatarFileError> {
            .failure(AvatarFileError(.corrupt, "section 'landmarks': \(what)"))
        }
        var reader = ByteReader(bytes)
        guard let namedCount = reader.u32() else { return bad("too short") }
        guard namedCount <= UInt32(AvatarFileFormat.maxNamedPoints) else { return bad("\(namedCount) named points") }
        var points: [String: SIMD2<Float>] = [:]
        for _ in 0..<Int(namedCount) {
            guard let length = reader.u8(), length > 0, let nameBytes = reader.take(Int(length)),
                  nameBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return bad("invalid point name") }
            let name = String(decoding: nameBytes, as: UTF8.self)
            guard let x = reader.f32(), let y = reader.f32() else { return bad("too short") }
            guard points.updateValue(SIMD2(x, y), forKey: name) == nil else { return bad("point '\(name)' twice") }
        }
        var outlines: [[SIMD2<Float>]] = []
        for _ in 0..<2 {
            guard let count = reader.u32() else { return bad("too short") }
            guard count <= UInt32(AvatarFileFormat.maxLipPoints), Int(count) * 8 <= reader.remaining else {
                return bad("invalid lip outline length \(count)")
            }
            var outline: [SIMD2<Float>] = []
            outline.reserveCapacity(Int(count))
            for _ in 0..<Int(count) {
                guard let x = reader.f32(), let y = reader.f32() else { return bad("too short") }
                outline.append(SIMD2(x, y))
            }
            outlines.append(outline)
        }
        var boxes: [PixelRect] = []
        for _ in 0..<2 {
            guard let x = reader.i32(), let y = reader.i32(), let w = reader.i32(), let h = reader.i32() else {
                return bad("too short")
            }
            boxes.append(PixelRect(x: Int(x), y: Int(y), width: Int(w), height: Int(h)))
        }
        guard reader.isAtEnd else { return bad("\(reader.remaining) unexpected bytes at the end") }
        return .success(FaceLandmarks(points: points, lipsOuter: outlines[0], lipsInner: outlines[1],
                                      faceBox: boxes[0], mouthBox: boxes[1]))
    }
}
