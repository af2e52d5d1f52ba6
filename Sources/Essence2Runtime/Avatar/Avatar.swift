/// One avatar, as read from an `.imx` file: the portrait and everything the renderer needs about its face.
package struct Avatar: Sendable {
    /// Display name (from the manifest).
    package var name: String
    /// Portrait size in pixels; FULL-mode frames have this size.
    package var width: Int
    package var height: Int
    /// The portrait, packed B,G,R, rows top to bottom, no padding: `width * height * 3` bytes.
    package var pixels: [UInt8]
    package var landmarks: FaceLandmarks
    package var mesh: FaceMesh
    /// The square crop shown in HEAD mode, inside the portrait.
    package var headBox: PixelRect
    /// Soft mask of the moving head region, one byte per pixel (0 still ... 255 moves with the head),
    /// `width * height` bytes; empty when the file carries none (the renderer then derives one).
    package var headMask: [UInt8]
    /// Seed of the idle motion (blinks, breathing, head movement) unless the host sets another.
    package var seed: UInt64
    /// Photoreal or character; a character's `landmarks` and `mesh` are empty.
    package private(set) var kind: AvatarKind = .photoreal

    /// A character avatar's rig (Expression 2); nil for a photoreal portrait.
    package var character: CharacterRig? {
        if case .character(let rig) = kind { rig } else { nil }
    }

    /// Frames a second and samples a frame: Expression 2's for a character, Essence 2's for a portrait.
    package var cadence: FrameCadence { kind.cadence }

    /// The avatar's kind as `avatar inspect` and the manifest name it: "character" or "photoreal".
    package var kindName: String { kind.name }

    /// A character avatar: the frame (`pixels`, the character composited on its backdrop), its rig, and the
    /// soft mask of what moves with the head.
    package init(name: String, width: Int, height: Int, pixels: [UInt8], character: CharacterRig, headBox: PixelRect,
                 headMask: [UInt8], seed: UInt64 = 0x5EED) {
        self.init(name: name, width: width, height: height, pixels: pixels,
                  landmarks: FaceLandmarks(points: [:], lipsOuter: [], lipsInner: [], faceBox: headBox, mouthBox: headBox),
                  mesh: FaceMesh(points: [], triangles: []), headBox: headBox, headMask: headMask, seed: seed)
        kind = .character(character)
    }

    package init(name: String, width: Int, height: Int, pixels: [UInt8], landmarks: FaceLandmarks, mesh: FaceMesh,
                headBox: PixelRect, headMask: [UInt8] = [], seed: UInt64 = 0x5EED) {
        self.name = name
        self.width = width
        self.height = height
        self.pixels = pixels
        self.landmarks = landmarks
        self.mesh = mesh
        self.headBox = headBox
        self.headMask = headMask
        self.seed = seed
    }
}
