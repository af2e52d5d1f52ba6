import Essence2Runtime

extension AvatarCommand {
    /// `essence2 avatar poses AVATAR --frames DIR …`: still frames for looking at an avatar closely, the
    /// articulation sweep or its idle motion, whole or cropped to the face or the mouth.
    static let posesScanner = ArgumentScanner(options: [
        .init(name: "--frames", takesValue: true), .init(name: "--region", takesValue: true),
        .init(name: "--idle", takesValue: true), .init(name: "--seed", takesValue: true),
    ])

    /// What part of the frame `poses` writes.
    enum PoseRegion: String {
        case full, face, mouth
    }

    static func poses(_ args: [String]) -> Int32 {
        func usageError(_ text: String) -> Int32 { AvatarCommand.usageError("poses", text) }
        let scanned: ArgumentScanner.Result
        do {
            scanned = try posesScanner.scan(args)
        } catch {
            return usageError(error.message)
        }
        guard scanned.positionals.count <= 1 else {
            return usageError("more than one avatar given ('\(scanned.positionals[1])')")
        }
        guard let directory = scanned.value("--frames") else { return usageError("--frames DIR is required") }
        var region = PoseRegion.full
        if let value = scanned.value("--region") {
            guard let r = PoseRegion(rawValue: value) else { return usageError("--region \(value) is not full, face or mouth") }
            region = r
        }
        var idleFrames: Int?
        if let value = scanned.value("--idle") {
            guard let seconds = Double(value), seconds.isFinite, seconds > 0, seconds <= 600 else {
                return usageError("--idle \(value) is not a number of seconds in 0...600")
            }
            idleFrames = max(1, Int((seconds * Double(StreamFormat.framesPerSecond)).rounded()))  // at 25 a second
        }
        var seed: UInt64?
        if let value = scanned.value("--seed") {
            do {
                seed = try RenderOptions.parseSeed(value)
            } catch {
                return usageError(error.message)
            }
        }
        do throws(CLIError) {
            let (_, avatar) = try ImxLocator.load(scanned.positionals.first)
            let renderer = avatar.makeRenderer()
            let crop = Self.cropRect(region, avatar: avatar)
            // Idle frames at the avatar's own rate (25 a second, or 20 for a character).
            let cadence = avatar.cadence
            let idleCount = idleFrames.map { max(1, $0 * cadence.framesPerSecond / StreamFormat.framesPerSecond) }
            let files = try FrameFiles(directory: directory)
            var frame = [UInt8](repeating: 0, count: avatar.width * avatar.height * 3)
            var tile = [UInt8](repeating: 0, count: crop.width * crop.height * 3)
            func write(_ params: FrameParams, name: String) throws(CLIError) {
                _ = frame.withUnsafeMutableBytes { renderer.render(params, mode: .full, into: $0, over: nil) }
                for y in 0..<crop.height {
                    let from = ((crop.y + y) * avatar.width + crop.x) * 3
                    tile.replaceSubrange((y * crop.width * 3)..<((y + 1) * crop.width * 3),
                                         with: frame[from..<(from + crop.width * 3)])
                }
                let failure = tile.withUnsafeBytes { bytes -> CLIError? in
                    do throws(CLIError) {
                        try files.write(name: name, bgr: bytes, width: crop.width, height: crop.height)
                        return nil
                    } catch {
                        return error
                    }
                }
                if let failure { throw failure }
            }
            do throws(CLIError) {
                if let idleFrames = idleCount {
                    let motion = IdleMotion(seed: seed ?? avatar.seed)
                    for k in 0..<idleFrames {
                        try write(FrameParams(pose: motion.pose(at: cadence.motionFrame(k))),
                                  name: FrameFiles.name(prefix: "idle", index: k))
                    }
                    print("essence2: wrote \(idleFrames) idle frames (\(crop.width)x\(crop.height)) to \(directory)/")
                } else {
                    for pose in ArticulationSweep.poses {
                        try write(FrameParams(articulation: pose.articulation), name: "pose_\(pose.name).png")
                    }
                    // The eyes half closed and closed (the most-closed frame of a blink), the mouth at rest.
                    try write(FrameParams(pose: FacePose(blink: 0.5)), name: "pose_blink_half.png")
                    try write(FrameParams(pose: FacePose(blink: 1)), name: "pose_blink.png")
                    let names = (ArticulationSweep.poses.map(\.name) + ["blink_half", "blink"]).joined(separator: " ")
                    print("essence2: wrote \(ArticulationSweep.poses.count + 2) poses (\(names); \(crop.width)x\(crop.height)) to \(directory)/")
                }
            } catch {
                files.remove()
                throw error
            }
            return ExitStatus.success
        } catch {
            printError("essence2 avatar poses: \(error.message)")
            return error.status
        }
    }

    /// The rectangle of the frame a region keeps: everything, the head box, or a box around the mouth 1.6 times
    /// its width and 0.6 times that high (kept inside the frame).
    static func cropRect(_ region: PoseRegion, avatar: Avatar) -> PixelRect {
        let whole = PixelRect(x: 0, y: 0, width: avatar.width, height: avatar.height)
        switch region {
        case .full:
            return whole
        case .face:
            return Renderer.clampedHeadBox(avatar.headBox, width: avatar.width, height: avatar.height,
                                           faceBox: avatar.landmarks.faceBox)
        case .mouth:
            var m = avatar.landmarks.mouthBox
            if let rig = avatar.character {
                // A character's mouth opens downwards: a box from a third of its width above the lip line.
                let w = max(8, rig.mouthRight.x - rig.mouthLeft.x)
                m = PixelRect(x: Int(rig.mouthLeft.x), y: Int(rig.mouthCenter.y - 0.2 * w), width: Int(w), height: Int(0.8 * w))
            }
            let w = min(avatar.width, max(16, m.width * 8 / 5)), h = min(avatar.height, max(12, w * 3 / 5))
            let cx = m.x + m.width / 2, cy = m.y + m.height / 2
            let x = min(max(cx - w / 2, 0), avatar.width - w), y = min(max(cy - h / 2, 0), avatar.height - h)
            return PixelRect(x: x, y: y, width: w, height: h)
        }
    }
}
