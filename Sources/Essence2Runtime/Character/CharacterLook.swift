/// How a character avatar looks against its own picture, measured on frames its renderer draws
/// (`essence2 avatar inspect --look`, the tests): whether the rest frame is the picture, what a closed blink
/// leaves of each eye, and where the mouth's motion is.
///
/// - Rest: the frame with the eyes open, the mouth at rest and no head motion, against the picture; pixels
///   of a mouth drawn open (which the engine shuts at rest) are left out.
/// - Each eye at a full blink, in the eye box (0.56 x 0.4 eye distances around the eye point): the contrast
///   (mean absolute deviation of the luma from its median) against the open eye's, the eye's own pixels
///   (white, iris) still showing, and the dark parts left (one lid line, or more: the outline stayed).
/// - The mouth's shapes (rest, a, e, i, o, u, m, f/v, l/th): where their change from rest is centred (in eye
///   distances from the mouth point), and how many pixels outside the head's mask change.
package struct CharacterLook: Sendable {
    package struct Eye: Sendable {
        /// What the picture draws there (open, closed, opaque, hidden).
        package var drawing: String
        /// The eye's measured extent, frame pixels (0 when not open).
        package var width: Float
        package var height: Float
        /// The closed eye box's contrast over the open one's (1 when the eye gets no lid).
        package var closedContrast: Float
        /// Pixels of the eye's white and iris that a full blink leaves showing.
        package var eyeLeft: Int
        /// Separate parts unlike the lid where the eye was, at a full blink (one: a lid line), and the tallest
        /// one's height over the open eye's.
        package var lineParts: Int
        package var lineHeight: Float
    }

    /// Pixels of the rest frame that differ from the picture (by more than 2 in a channel), and the largest
    /// difference.
    package var restDiffering: Int
    package var restLargest: Int
    package var eyes: [Eye]
    /// Where the mouth shapes' change is centred, in eye distances from the mouth point (or quarters of the
    /// head's size, where that is larger: a profile's eyes are close together).
    package var motionCentre: Float
    /// Pixels outside the head's mask that any mouth shape changes.
    package var outsideHead: Int

    /// Measures `avatar` (a character; nil for a photoreal one).
    package init?(avatar: Avatar) {
        guard let rig = avatar.character else { return nil }
        let renderer = CharacterRenderer(avatar: avatar)
        let w = avatar.width, h = avatar.height
        func frame(_ params: FrameParams) -> [UInt8] {
            var out = [UInt8](repeating: 0, count: w * h * 3)
            _ = out.withUnsafeMutableBytes { renderer.render(params, mode: .full, into: $0, over: nil) }
            return out
        }
        let picture = avatar.pixels
        let rest = frame(FrameParams())
        // A mouth drawn open is shut at rest: where the mouth moves to shut it is left out.
        var skip = PixelRect(x: 0, y: 0, width: 0, height: 0)
        if rig.mouth == .open { skip = CharacterFrame(renderer: renderer, params: FrameParams()).featureArea(renderer) }
        var differing = 0, largest = 0
        for i in 0..<(w * h) {
            let x = i % w, y = i / w
            if x >= skip.x, x < skip.maxX, y >= skip.y, y < skip.maxY { continue }
            var d = 0
            for c in 0..<3 { d = max(d, abs(Int(rest[3 * i + c]) - Int(picture[3 * i + c]))) }
            if d > 2 { differing += 1 }
            largest = max(largest, d)
        }
        restDiffering = differing
        restLargest = largest

        let closed = frame(FrameParams(pose: FacePose(blink: 1)))
        let ed = rig.eyeDistance
        eyes = zip([rig.leftEye, rig.rightEye], renderer.eyes).map { point, eye in
            Self.measureEye(point: point, eye: eye, eyeDistance: ed, open: rest, closed: closed, width: w, height: h)
        }

        // The mouth shapes' change from rest.
        var sum = SIMD2<Double>(0, 0), total = 0.0, outside = 0
        for (_, articulation) in ArticulationSweep.poses.dropFirst() {
            let shape = frame(FrameParams(articulation: articulation))
            for i in 0..<(w * h) {
                var d = 0
                for c in 0..<3 { d += abs(Int(shape[3 * i + c]) - Int(rest[3 * i + c])) }
                guard d > 0 else { continue }
                sum += SIMD2(Double(i % w), Double(i / w)) * Double(d)
                total += Double(d)
                if avatar.headMask[i] == 0, d > 6 { outside += 1 }
            }
        }
        let centre = total > 0 ? SIMD2<Float>(Float(sum.x / total), Float(sum.y / total)) : rig.mouthCenter
        let off = centre - rig.mouthCenter
        // In eye distances, or a quarter of the head's size where that is larger (a profile's eyes are close).
        motionCentre = (off.x * off.x + off.y * off.y).squareRoot() / max(ed, 0.25 * renderer.headSize, 1)
        outsideHead = outside
    }

    private static func measureEye(point: SIMD2<Float>, eye: CharacterEye, eyeDistance ed: Float, open: [UInt8],
                                   closed: [UInt8], width w: Int, height h: Int) -> Eye {
        let boxW = Int((0.56 * ed).rounded()), boxH = Int((0.4 * ed).rounded())
        let box = PixelRect(x: Int(point.x) - boxW / 2, y: Int(point.y) - boxH / 2, width: boxW, height: boxH)
            .clipped(width: w, height: h)
        func luma(_ f: [UInt8], _ i: Int) -> Float {
            0.114 * Float(f[3 * i]) + 0.587 * Float(f[3 * i + 1]) + 0.299 * Float(f[3 * i + 2])
        }
        func contrast(_ f: [UInt8]) -> Float {
            var values: [Float] = []
            for y in box.y..<box.maxY { for x in box.x..<box.maxX { values.append(luma(f, y * w + x)) } }
            guard !values.isEmpty else { return 0 }
            let median = values.sorted()[values.count / 2]
            return values.reduce(0) { $0 + abs($1 - median) } / Float(values.count)
        }
        let openContrast = contrast(open)
        let extent = eye.extent
        guard eye.closes, box.width > 0, box.height > 0 else {
            return Eye(drawing: eye.drawing.rawValue, width: extent.width, height: extent.height,
                       closedContrast: 1, eyeLeft: 0, lineParts: 0, lineHeight: 0)
        }
        let ratio = openContrast > 0 ? contrast(closed) / openContrast : 1
        // The eye's own pixels: where the eye covers, unlike the lid's colour and unlike its line.
        let lid = eye.lid, line = eye.line
        func colour(_ f: [UInt8], _ i: Int) -> SIMD3<Float> { SIMD3(Float(f[3 * i]), Float(f[3 * i + 1]), Float(f[3 * i + 2])) }
        func far(_ a: SIMD3<Float>, _ b: SIMD3<Float>, _ limit: Float) -> Bool {
            let d = a - b
            return abs(d.x) + abs(d.y) + abs(d.z) > limit
        }
        var left = 0
        let cover = eye.box
        for y in max(cover.y, 0)..<min(cover.maxY, h) {
            for x in max(cover.x, 0)..<min(cover.maxX, w) where eye.coverage[(y - cover.y) * cover.width + x - cover.x] != 0 {
                let i = y * w + x
                // An eye pixel (not the skin, the line or a blend of them, as an anti-aliased outline is) that
                // the blink left as it was.
                let was = colour(open, i)
                let along = line - lid
                let k = min(max(((was - lid) * along).sum() / max((along * along).sum(), 1), 0), 1)
                let offLine = was - (lid + along * k)
                guard (offLine * offLine).sum() > 40 * 40 else { continue }
                if !far(colour(closed, i), was, 12) { left += 1 }
            }
        }
        // The parts left where the eye was (its extent with room for the lid line): pixels far from the lid, in
        // 8-connected parts of 3 pixels or more.
        let parts = cover.clipped(width: w, height: h)
        var dark = [Bool](repeating: false, count: parts.width * parts.height)
        for y in 0..<parts.height {
            for x in 0..<parts.width {
                // Within the eye's own rows in that column (a brow above or a nose below is not the eye).
                let column = parts.x + x - cover.x, row = Float(parts.y + y)
                guard eye.bottom[column] >= eye.top[column], row >= eye.top[column] - 1, row <= eye.bottom[column] + 1,
                      eye.coverage[(parts.y + y - cover.y) * cover.width + column] != 0 else { continue }
                dark[y * parts.width + x] = far(colour(closed, (parts.y + y) * w + parts.x + x), lid, 90)
            }
        }
        var seen = [Bool](repeating: false, count: dark.count)
        var partCount = 0
        var tallest = 0
        for start in dark.indices where dark[start] && !seen[start] {
            var stack = [start], count = 0, top = Int.max, bottom = Int.min
            seen[start] = true
            while let i = stack.popLast() {
                count += 1
                let x = i % parts.width, y = i / parts.width
                top = min(top, y)
                bottom = max(bottom, y)
                for dy in -1...1 {
                    for dx in -1...1 {
                        let nx = x + dx, ny = y + dy
                        guard nx >= 0, ny >= 0, nx < parts.width, ny < parts.height else { continue }
                        let j = ny * parts.width + nx
                        if dark[j], !seen[j] { seen[j] = true; stack.append(j) }
                    }
                }
            }
            if count >= 3 {
                partCount += 1
                tallest = max(tallest, bottom - top + 1)
            }
        }
        return Eye(drawing: eye.drawing.rawValue, width: extent.width, height: extent.height, closedContrast: ratio,
                   eyeLeft: left, lineParts: partCount, lineHeight: Float(tallest) / max(extent.height, 1))
    }
}

extension CharacterLook {
    /// The figures as one JSON object (`essence2 avatar inspect --look`): `rest_differing`, `rest_largest`,
    /// `eyes` (each `drawing`, `extent` [width, height], `closed_contrast`, `eye_left`, `line_parts`,
    /// `line_height`), `motion_centre` and `outside_head`.
    package var json: JSONValue {
        func num(_ v: Float) -> JSONValue { .number(String((Double(v) * 1000).rounded() / 1000)) }
        func int(_ v: Int) -> JSONValue { .number(String(v)) }
        return .object([
            JSONMember("rest_differing", int(restDiffering)), JSONMember("rest_largest", int(restLargest)),
            JSONMember("eyes", .array(eyes.map { e in
                .object([JSONMember("drawing", .string(e.drawing)), JSONMember("extent", .array([num(e.width), num(e.height)])),
                         JSONMember("closed_contrast", num(e.closedContrast)), JSONMember("eye_left", int(e.eyeLeft)),
                         JSONMember("line_parts", int(e.lineParts)), JSONMember("line_height", num(e.lineHeight))])
            })),
            JSONMember("motion_centre", num(motionCentre)), JSONMember("outside_head", int(outsideHead)),
        ])
    }
}
