import Essence2Runtime
/// How a new engine's session starts (shared by `be_essence2_create` and `Essence2Engine.create`).
package enum SessionGate {
    /// The outcome of `begin`.
    package enum Admission: Sendable {
        /// No service configured: the engine runs unmetered (nothing was sent, libcurl was not loaded).
        case unmetered
        /// Refused before or without asking the service (no secret, no libcurl, unreadable file).
        case refused(reason: String)
        /// The first check is on its way: wait for `session.start` (`waitForStart`).
        case checking(MeteredSession)
    }

    /// The client name sent with a session: "essence2/MAJOR.MINOR.PATCH".
    package static var client: String { "essence2/\(LibraryVersion.string)" }

    /// Starts the session check for the avatar file at `path`, whose bytes (already read and valid) are
    /// `fileBytes`: their SHA-256 names the avatar, computed only when a service is configured. Records a
    /// refusal.
    package static func begin(avatarPath path: String, fileBytes: [UInt8],
                              clock: any MonotonicClock = SystemClock()) -> Admission {
        guard let service = Credentials.serviceURL() else { return .unmetered }
        let admission = check(service: service, avatarPath: path, fileBytes: fileBytes, clock: clock)
        if case .refused(let reason) = admission { Credentials.recordRefusal(reason) }
        return admission
    }

    private static func check(service: String, avatarPath path: String, fileBytes: [UInt8],
                              clock: any MonotonicClock) -> Admission {
        guard Credentials.isServiceURL(service) else {
            return .refused(reason: "the metering service URL '\(service)' (ESSENCE2_SERVICE_URL) must start with "
                            + "http:// or https://")
        }
        guard let secret = Credentials.resolvedSecret() else {
            let meter = SessionMeter(service: service, hasSecret: false, now: clock.nanoseconds())
            if case .refused(let reason) = meter.start { return .refused(reason: reason) }
            return .refused(reason: "no API secret")
        }
        if let problem = Credentials.secretProblem(secret) { return .refused(reason: problem) }
        let digest = SHA256.hex(SHA256.hash(fileBytes))
        let transport: CurlTransport
        switch CurlTransport.make(baseURL: service) {
        case .success(let made): transport = made
        case .failure(let failure): return .refused(reason: failure.reason)
        }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let body = ServiceMessages.openBody(avatarSHA256: digest, avatarName: name, installID: InstallIdentity.current(),
                                            client: client)
        let session = MeteredSession(meter: SessionMeter(service: service, hasSecret: true, now: clock.nanoseconds()),
                                     transport: transport, secret: secret, openBody: body,
                                     startTimeoutMs: Credentials.startTimeoutMilliseconds(), clock: clock)
        guard session.startThread() else {
            return .refused(reason: "could not start the metering thread (pthread_create failed)")
        }
        return .checking(session)
    }

    /// `begin`, then (when a service is asked) `wait`: the accepted session, nil when unmetered, or the refusal
    /// (recorded). Blocks at most the start timeout; what the C interface's create calls and Expression 2's
    /// synchronous `create` do.
    package static func admit(avatarPath path: String, fileBytes: [UInt8]) -> Result<MeteredSession?, SessionRefusal> {
        switch begin(avatarPath: path, fileBytes: fileBytes) {
        case .unmetered: return .success(nil)
        case .refused(let reason): return .failure(SessionRefusal(reason: reason))
        case .checking(let session): return wait(session).map { Optional($0) }
        }
    }

    /// Waits for the first check (blocking, bounded by the start timeout): the session when accepted, else the
    /// refusal (recorded).
    package static func wait(_ session: MeteredSession) -> Result<MeteredSession, SessionRefusal> {
        outcome(of: session.waitForStart(), session)
    }

    /// What the first check's answer `start` means for `session`: the session when accepted, else the refusal
    /// (recorded; still pending means the service did not answer in time).
    package static func outcome(of start: MeterStart, _ session: MeteredSession) -> Result<MeteredSession, SessionRefusal> {
        switch start {
        case .accepted:
            return .success(session)
        case .refused(let reason):
            Credentials.recordRefusal(reason)
            return .failure(SessionRefusal(reason: reason))
        case .pending:
            return .failure(SessionRefusal(reason: "the metering service did not answer"))
        }
    }
}
