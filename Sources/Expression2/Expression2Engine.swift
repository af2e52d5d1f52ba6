import Essence2Runtime
import Essence2Service
import Essence2Kit
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// One talking character (Expression 2): speech in (`feed`), frames out (`frames()`, `nextFrame`, `pull`), 20 a
/// second, with idle motion (blinks, sway, breathing) between replies. The Swift API of the reference's
/// Expression 2 SDK, on the same engine as Essence 2 and the C interface (`include/expression2.h`): the same
/// pacing rules (a reply's first speech frame anchors it, late frames are skipped, `endsReply` and
/// `.replyEnded` once per reply), sessions and downloads.
///
/// Every method is thread-safe, and none but the `async` ones waits. Call `shutdown()` when done (releasing the
/// engine does it too).
public final class Expression2Engine: Sendable {
    /// Frames a second: 20 (800 samples of 16 kHz audio each).
    public static let framesPerSecond: Double = 20

    /// Frame width and height in pixels (416x720 for an avatar built with the default size).
    public let width: Int
    public let height: Int

    package let inner: Essence2Engine

    package init(inner: Essence2Engine) {
        self.inner = inner
        width = inner.width
        height = inner.height
    }

    // MARK: Creating

    /// Opens a character avatar and starts its engine (it becomes ready within milliseconds: `isReady`).
    /// - Parameters:
    ///   - avatarContainer: the character's `.imx` (built by `essence2 avatar build --character`, or downloaded).
    ///   - sharedEngineContainer: the shared `.engine` file (`essence2 engine export` writes one), sha256-checked;
    ///     nil uses the models built into the library.
    ///   - sharedEngineDir: a directory holding a staged engine (`engine/` of a staging directory); used when no
    ///     container is given.
    ///   - stagingDir: a writable directory (made when missing) where the first start prepares the avatar and the
    ///     engine's checked weights; later starts reuse them. Keep it between launches.
    ///   - warmSpeech: speech (16 kHz mono) run through the lip-sync model once before the first reply.
    /// - Throws: `Expression2LoadError`.
    public static func create(avatarContainer: URL, sharedEngineContainer: URL? = nil, sharedEngineDir: URL? = nil,
                              stagingDir: URL, warmSpeech: [Float]? = nil) throws -> Expression2Engine {
        let avatarPath = avatarContainer.path
        let opening = try readCharacter(avatarPath)
        let bytes = opening.fileBytes
        let staging = stagingDir.path
        guard BinaryFile.makeDirectories(staging), access(staging, W_OK) == 0 else {
            throw Expression2LoadError.stagingUnavailable(reason: "'\(staging)' is not a writable directory")
        }
        let directory = staging + "/" + String(SHA256.hex(SHA256.hash(bytes)).prefix(16))
        try Expression2Staging.stageAvatar(bytes, in: directory)
        let weights: LipSyncWeights
        if let sharedEngineContainer {
            weights = try Expression2Staging.weights(container: sharedEngineContainer.path, stagedIn: directory)
        } else if let sharedEngineDir {
            weights = try stagedWeights(in: sharedEngineDir.path)
        } else {
            weights = .shipped
        }
        return try start(opening, weights: weights, warmSpeech: warmSpeech)
    }

    /// Opens an avatar already staged (or any character `.imx`): `modelPath` is a staging directory's avatar
    /// directory (holding `avatar.imx`) or an `.imx` file; `sharedEngineDir` a directory holding the staged
    /// engine (`lipsync.e2nw`, or `engine/lipsync.e2nw`); nil uses the built-in models.
    /// - Throws: `Expression2LoadError`.
    public static func create(modelPath: URL, sharedEngineDir: URL? = nil, warmSpeech: [Float]? = nil) throws
        -> Expression2Engine
    {
        var path = modelPath.path
        var info = stat()
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { path += "/" + Expression2Staging.avatarFile }
        let opening = try readCharacter(path)
        let weights = try sharedEngineDir.map { url throws(Expression2LoadError) in try stagedWeights(in: url.path) } ?? .shipped
        return try start(opening, weights: weights, warmSpeech: warmSpeech)
    }

    private static func readCharacter(_ path: String) throws(Expression2LoadError) -> AvatarOpening {
        do {
            return try AvatarOpening.read(path: path, for: .expression2)
        } catch {
            throw .avatarUnreadable(reason: error.reason)
        }
    }

    private static func stagedWeights(in directory: String) throws(Expression2LoadError) -> LipSyncWeights {
        try Expression2Staging.staged(in: directory)
    }

    private static func start(_ opening: AvatarOpening, weights: LipSyncWeights, warmSpeech: [Float]?)
        throws(Expression2LoadError) -> Expression2Engine {
        let session: MeteredSession?
        do {
            session = try opening.admit()
        } catch {
            throw .meteringRefused(reason: error.reason)
        }
        if let warmSpeech, !warmSpeech.isEmpty { warm(warmSpeech, weights: weights) }
        let engine = Engine(avatar: opening.avatar, session: session, weights: weights)
        return Expression2Engine(inner: Essence2Engine(engine: engine, clock: SystemKitClock()))
    }

    /// Runs up to 2 s of `speech` through the lip-sync model at Expression 2's cadence, and drops the result.
    private static func warm(_ speech: [Float], weights: LipSyncWeights) {
        var stream = LipSyncStream(model: .learned, cadence: .expression2, weights: weights)
        let samples = speech.prefix(2 * StreamFormat.sampleRate).map(SampleConversion.int16)
        samples.withUnsafeBufferPointer { stream.append($0) }
        while stream.nextFrame(flush: true) != nil {}
    }
}
