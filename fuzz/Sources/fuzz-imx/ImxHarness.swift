import Essence2Authoring
import Essence2Runtime
import FuzzSupport
import Synchronization

/// fuzz-imx: the `.imx` reader, structure-aware. An input is a recipe: which seed avatar (the sample portrait
/// and character at an eighth of their size, so that many mutants a second are read and rendered, or now and
/// then at full size), how to render a survivor, then edits (`ImxMutation`). The edited file, with its
/// checksums recomputed, goes through `AvatarFile.read(bytes:)`; it must come back as an avatar or an
/// `AvatarFileError`, and an avatar that comes back must validate and render frames (`EngineRun`): each
/// distinct surviving avatar once per process and settings (many inputs make the same avatar: an edit of an
/// `info` string, another section order or encoding; rendering is the slow part).
enum ImxHarness {
    /// The SHA-256 of every surviving avatar rendered so far (as the writer encodes it), with its settings.
    static let rendered = Mutex<Set<[UInt8]>>([])

    static let seeds: [(name: String, file: ImxContainer)] = {
        let photoreal = FuzzRepository.avatar("avatars/grace-hopper.imx")
        let character = FuzzRepository.avatar("avatars/squirrel.imx")
        let small = [photoreal.downscaled(by: 8), character.downscaled(by: 8)].map { avatar in
            (avatar.name, ImxContainer(valid: AvatarFile.encode(avatar)))
        }
        return small + [("grace-hopper.imx", ImxContainer(valid: FuzzRepository.file("avatars/grace-hopper.imx"))),
                        ("squirrel.imx", ImxContainer(valid: FuzzRepository.file("avatars/squirrel.imx")))]
    }()

    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let choice = input.byte()
        // Mostly the small seeds; one input in 32 (per seed) starts from the full-size file.
        let seed = choice % 32 == 31 ? 2 + Int(choice / 32) % 2 : Int(choice % 2)
        var container = seeds[seed].file
        let mode: DisplayMode = input.byte() & 1 == 0 ? .full : .head
        let model: LipSyncModel = input.byte() & 1 == 0 ? .learned : .v1
        ImxMutation.apply(1 + input.below(8), from: &input, to: &container)
        let file = container.encoded()
        let avatar: Avatar
        do {
            avatar = try AvatarFile.read(bytes: file)
        } catch {
            ImxStatistics.refused()
            return
        }
        if let problem = avatar.validationProblem() {
            fatalError("the reader returned an avatar that does not validate: \(problem)")
        }
        ImxStatistics.accepted()
        let key = renderKey(avatar, mode: mode, model: model)
        guard rendered.withLock({ $0.insert(key).inserted }) else { return }
        ImxStatistics.rendered()
        render(avatar, mode: mode, model: model)
    }

    /// What makes a survivor distinct: the avatar as the writer encodes it, less its picture and head mask,
    /// whose bytes are hashed as they are (rle8-encoding and SHA-256 of a full-size picture for every survivor
    /// took a fifth of the harness's time), and the settings. Within one process, as `rendered` is.
    static func renderKey(_ avatar: Avatar, mode: DisplayMode, model: LipSyncModel) -> [UInt8] {
        var shape = avatar
        shape.pixels = []
        shape.headMask = []
        var hasher = Hasher()
        avatar.pixels.withUnsafeBytes { hasher.combine(bytes: $0) }
        hasher.combine(avatar.pixels.count)
        avatar.headMask.withUnsafeBytes { hasher.combine(bytes: $0) }
        hasher.combine(avatar.headMask.count)
        let bulk = withUnsafeBytes(of: hasher.finalize()) { Array($0) }
        return SHA256.hash(AvatarFile.encode(shape) + bulk + [UInt8(mode.rawValue), UInt8(model.rawValue)])
    }

    /// An engine for `avatar`: an idle frame, then a reply of two frames' audio (a tone) and its two frames.
    static func render(_ avatar: Avatar, mode: DisplayMode, model: LipSyncModel) {
        let frames = 2
        var run = EngineRun(avatar: avatar, mode: mode, model: model)
        run.takeFrame(idleOnly: true)
        let count = avatar.cadence.samplesPerFrame * frames
        let tone = (0..<count).map { Int16(truncatingIfNeeded: ($0 * 37 % 400 - 200) * 60) }
        let queued = tone.withUnsafeBufferPointer { run.engine.push($0) }
        precondition(queued == .queued, "a fresh engine did not queue \(count) samples: \(queued)")
        run.engine.endUtterance()
        for _ in 0..<frames { run.takeFrame() }
        run.finish()
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    ImxHarness.run(data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
    return 0
}
