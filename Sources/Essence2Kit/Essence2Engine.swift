import Essence2Runtime
import Essence2Service
@_exported import Essence2
import FoundationEssentials

/// One talking avatar: speech in (`feed`), frames out (`frames()`, `nextFrame`, `pullFrame`), with idle motion
/// between replies. The Swift API of the reference's Essence 2 SDK, on the same engine as the C interface
/// (`libessence2.so`): every way of taking frames draws from that engine and hands out at most 25 a second in
/// realtime pacing; in unpaced pacing the frames are byte-identical to the C interface's for the same avatar,
/// audio and seed.
///
/// Every method is thread-safe, and none but the `async` ones waits: `feed` queues what the engine cannot take
/// yet and pushes it as frames are taken. Call `shutdown()` when done (releasing the engine does it too).
public final class Essence2Engine: Sendable {
    /// Frames a second: 25.
    public static let framesPerSecond = Double(StreamFormat.framesPerSecond)

    /// Frame width in pixels.
    public let width: Int
    /// Frame height in pixels.
    public let height: Int

    package let engine: Engine
    package let clock: any KitClock
    let state: Locked<KitState>
    let registration: UInt64

    package init(engine: Engine, clock: any KitClock) {
        self.engine = engine
        self.clock = clock
        (width, height) = engine.frameSize
        state = Locked(KitState(frameBytes: engine.frameBytes))
        registration = EngineRegistry.shared.nextID()
        EngineRegistry.shared.add(self)
    }

    deinit {
        EngineRegistry.shared.remove(registration)
        engine.stop()
        engine.endSession(waitUntil: nil)
        let continuations = state.withLock { $0.closeAll() }
        continuations.finish()
    }

    // MARK: Creating

    /// Opens the avatar at `identity` (an `.imx` file) and starts its engine, waiting until it is ready.
    /// - Parameters:
    ///   - resourcesDirectory: a directory of runtime files; this version carries what it needs inside the
    ///     library, so it only has to exist when given.
    ///   - readyTimeout: seconds to wait for the first frame to render.
    /// - Throws: `Essence2KitError`.
    public static func create(identity: URL, resourcesDirectory: URL? = nil, readyTimeout: Double = 300) async throws
        -> Essence2Engine
    {
        try await create(identity: identity.path, resourcesDirectory: resourcesDirectory?.path, readyTimeout: readyTimeout,
                         clock: SystemKitClock())
    }

    /// `create` on an injected clock (tests run it on virtual time); `startRendering: false` makes an engine
    /// that never becomes ready.
    package static func create(identity path: String, resourcesDirectory: String? = nil, readyTimeout: Double = 300,
                               clock: any KitClock, startRendering: Bool = true) async throws(Essence2KitError)
        -> Essence2Engine
    {
        if let resourcesDirectory, !DirectoryCheck.isDirectory(resourcesDirectory) {
            throw .resourcesUnavailable(reason: "'\(resourcesDirectory)' is not a directory (pass nil: this version "
                                        + "needs no runtime files)")
        }
        let opening: AvatarOpening
        do {
            opening = try AvatarOpening.read(path: path, for: .essence2)
        } catch .unreadable(let error) where error.isOutdated {
            // A file Essence2Download fetched is fetched once more (the service may have a newer build of it);
            // any other file must be downloaded or rebuilt by its owner.
            guard let code = AvatarDownloads.agentCode(ofDownloaded: path) else {
                throw .identityOutdated(path: path, agentCode: nil, reason: error.description)
            }
            let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
            let fetched = await Task.detached {
                AvatarDownloads.fetch(code: code, directory: directory, background: false)
            }.value
            guard case .success(let again) = fetched, let reread = try? AvatarOpening.read(path: again, for: .essence2)
            else {
                throw .identityOutdated(path: path, agentCode: code, reason: error.description
                                        + "; fetching \(code) again did not give a newer file")
            }
            opening = reread
        } catch {
            throw .identityUnreadable(reason: error.reason)
        }
        let session = try await admit(avatarPath: opening.path, fileBytes: opening.fileBytes)
        let made = Essence2Engine(engine: Engine(avatar: opening.avatar, clock: clock, startRendering: startRendering,
                                                 session: session), clock: clock)
        let deadline = clock.nanoseconds() + Int64(max(0, min(readyTimeout, 1e6)) * 1e9)
        while !made.engine.isReady {
            if clock.nanoseconds() >= deadline || Task.isCancelled {
                made.shutdown()
                throw .notReady
            }
            await clock.sleep(until: clock.nanoseconds() + Self.pollInterval)
        }
        return made
    }

    /// The session check (docs/sessions.md): nil when no service is configured (unmetered), else the accepted
    /// session. Waits without blocking a thread, at most the start timeout.
    private static func admit(avatarPath path: String, fileBytes: [UInt8]) async throws(Essence2KitError)
        -> MeteredSession?
    {
        switch SessionGate.begin(avatarPath: path, fileBytes: fileBytes) {
        case .unmetered:
            return nil
        case .refused(let reason):
            throw .meteringRefused(reason: reason)
        case .checking(let session):
            let deadline = SystemClock().nanoseconds() + Int64(Credentials.startTimeoutMilliseconds() + 250) * 1_000_000
            var start = session.start
            while start == .pending && SystemClock().nanoseconds() < deadline && !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 2_000_000)
                start = session.start
            }
            if start == .pending { start = session.giveUpStart() }
            switch SessionGate.outcome(of: start, session) {
            case .success(let accepted): return accepted
            case .failure(let refusal): throw .meteringRefused(reason: refusal.reason)
            }
        }
    }

    /// How often the `async` calls look for a due frame while they wait.
    static let pollInterval: Int64 = 2_000_000

    // MARK: Settings and status

    /// How fast frames are handed out (`.realtime` by default).
    public var pacing: Essence2Pacing {
        get { engine.pacing == .unpaced ? .unpaced : .realtime }
        set { engine.setPacing(newValue == .unpaced ? .unpaced : .realtime) }
    }

    /// Whether speech frames can flow (the first frame has rendered).
    public var isReady: Bool { engine.isReady }

    /// Frames skipped to keep a reply on its audio's timeline: a full frame late on the engine's timeline, or
    /// their audio already played by the audio clock.
    public var droppedFrames: Int {
        Int(engine.skippedFrames)
    }

    /// Fed audio the engine has not taken yet (16 kHz samples): waiting beyond its ring, or in the ring and
    /// not yet turned into frames.
    public var pendingSamples: Int {
        engine.pendingSamples + engine.bufferedSamples
    }

    /// Why the metering service's session refuses frames now (docs/sessions.md: the service unreachable for 5
    /// minutes of rendered video, or the secret rejected mid-session, which is final); nil while frames flow,
    /// and always when no service is configured. While it is set, no frames come (`pullFrame` gives nil).
    public var meteringRefusal: String? { engine.sessionRefusal }

    /// Set when the engine stopped (`shutdown()`, `quiesceAll()`, or its session ended for good): why, and that it
    /// hands out no more frames; nil while it runs.
    public var runtimeFailure: String? {
        guard engine.isStopped else { return nil }
        if let refusal = engine.sessionRefusal { return "the engine stopped: \(refusal)" }
        return "the engine stopped (shutdown or quiesceAll); create a new one"
    }

    /// Why rendering failed, when a frame could not be rendered (the engine goes on with the frames it can);
    /// nil while healthy. Beyond the reference.
    public var renderFailure: String? {
        let health = engine.renderHealth
        return health.failures == 0 ? nil : "rendering failed \(health.failures) time(s); latest: \(health.reason)"
    }

    /// Seeds the idle motion (blinks, head movement) of the frames planned from now on; the default seed comes
    /// from the avatar. Set it right after `create` for reproducible output.
    public func setSeed(_ seed: UInt64) {
        engine.setSeed(seed)
    }

    // MARK: Lifecycle

    /// Stops the engine: no more frames, every stream finishes. Idempotent.
    public func shutdown() {
        engine.stop()
        // A metered session's final report, waited for at most 2 s (at once when unmetered).
        engine.endSession(waitUntil: SystemClock().nanoseconds() + 2_000_000_000)
        let continuations = state.withLock { $0.closeAll() }
        continuations.finish()
    }

    /// Finishes every stream (the engine already stopped).
    private func close() {
        let continuations = state.withLock { $0.closeAll() }
        continuations.finish()
    }

    /// Stops every live engine of the process and waits, at most `timeoutMs` milliseconds in all, for their
    /// background work. Returns the number stopped. Call it at exit.
    @discardableResult
    public static func quiesceAll(timeoutMs: Int32 = 5000) -> Int {
        let engines = EngineRegistry.shared.all()
        var stopped = 0
        for engine in engines {
            if engine.engine.stop() { stopped += 1 }
            engine.engine.endSession(waitUntil: nil)
            engine.close()
        }
        let deadline = SystemClock().nanoseconds() + Int64(max(timeoutMs, 0)) * 1_000_000
        for engine in engines { _ = engine.engine.waitUntilStopped(deadline: deadline) }
        for engine in engines { engine.engine.endSession(waitUntil: deadline) }
        return stopped
    }
}
