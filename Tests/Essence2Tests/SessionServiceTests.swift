import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import Essence2Kit
@testable import Essence2Runtime
@testable import Essence2Service

/// What goes on the wire (docs/service-protocol.md), the install identifier, and the session driver on a fake
/// transport (a real background thread, no network).
@Suite struct SessionServiceTests {
    @Test func bodiesCarryExactlyTheProtocolFields() {
        #expect(ServiceMessages.openBody(avatarSHA256: "ab", avatarName: "grace \"h\".imx", installID: "id", client: "essence2/1.2.0")
                == #"{"avatar_sha256": "ab", "avatar_name": "grace \"h\".imx", "install_id": "id", "client": "essence2/1.2.0"}"#)
        #expect(ServiceMessages.usageBody(UsageFigures(frames: 1_530, talkingFrames: 500), final: false)
                == #"{"seconds": 61, "talking_seconds": 20, "idle_seconds": 41, "final": false}"#)
        #expect(ServiceMessages.quoted("a\nb\u{1}") == #""a\nb\u0001""#)
        #expect(ServiceMessages.path(.open) == "/v1/sessions")
        #expect(ServiceMessages.path(.usage(sessionID: "a/b c", figures: UsageFigures(), final: true))
                == "/v1/sessions/a%2Fb%20c/usage")
    }

    @Test func answersMapAsTheProtocolSays() {
        func body(_ text: String) -> [UInt8] { Array(text.utf8) }
        let usage = MeterRequest.usage(sessionID: "s", figures: UsageFigures(), final: false)
        #expect(ServiceMessages.reply(to: .open, status: 201,
                                      body: body(#"{"session_id": "s9", "report_interval_s": 15, "avatar_code": null}"#))
                == .opened(sessionID: "s9", reportIntervalSeconds: 15))
        #expect(ServiceMessages.reply(to: .open, status: 201, body: body("{}")) == .unreachable(reason: "201 without a session_id"))
        #expect(ServiceMessages.reply(to: usage, status: 200, body: body(#"{"billed_seconds": 3}"#)) == .reported)
        #expect(ServiceMessages.reply(to: .open, status: 401, body: body(#"{"error": "INVALID_SECRET", "reason": "revoked"}"#))
                == .invalidSecret(reason: "revoked"))
        #expect(ServiceMessages.reply(to: .open, status: 403, body: body(#"{"error": "AGENT_NOT_ENTITLED", "reason": "no"}"#))
                == .notEntitled(reason: "no"))
        if case .sessionGone = ServiceMessages.reply(to: usage, status: 409, body: body(#"{"error": "SESSION_CLOSED", "reason": "x"}"#)) {
        } else { Issue.record("409 to a report: the session is gone") }
        for status in [500, 502, 400, 422, 404] {
            if case .unreachable = ServiceMessages.reply(to: .open, status: status, body: body("<html>")) {
            } else { Issue.record("\(status) to open: unreachable") }
        }
    }

    @Test func utcTimesAreISO8601() {
        #expect(UTCTime.iso8601(0) == "1970-01-01T00:00:00Z")
        #expect(UTCTime.iso8601(951_782_400) == "2000-02-29T00:00:00Z")
        #expect(UTCTime.iso8601(1_800_000_000) == "2027-01-15T08:00:00Z")
    }

    @Test func installIdentifierIsMadeOnceAndKept() throws {
        var template = Array("/tmp/essence2-install-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        try #require(made != nil)
        let directory = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        let path = directory + "/state/essence2/install-id"
        let first = InstallIdentity.load(path: path)
        #expect(first.map(InstallIdentity.isUUID) == true)
        #expect(InstallIdentity.load(path: path) == first, "read back, not made again")
        #expect(InstallIdentity.read(path) == first)
        unlink(path)
        rmdir(directory + "/state/essence2")
        rmdir(directory + "/state")
        rmdir(directory)
        #expect(InstallIdentity.isUUID(InstallIdentity.randomUUID()))
        #expect(!InstallIdentity.isUUID("not-a-uuid"))
    }

    /// Answers like the service: opens sessions, records the reports, or fails as told.
    final class FakeService: ServiceTransport, @unchecked Sendable {
        let calls = Locked<[(path: String, body: String)]>([])
        let failing = Locked(false)

        func post(path: String, body: String, secret: String, timeoutMs: Int) -> ServiceAnswer {
            calls.withLock { $0.append((path, body)) }
            if failing.withLock({ $0 }) { return .failed(reason: "Connection refused") }
            if path == "/v1/sessions" {
                return .answered(status: 201, body: Array(#"{"session_id": "f1", "report_interval_s": 30}"#.utf8))
            }
            return .answered(status: 200, body: Array(#"{"closed": false}"#.utf8))
        }
    }

    @Test(.timeLimit(.minutes(1))) func driverStartsCountsAndSendsTheFinalReport() {
        let service = FakeService()
        let session = MeteredSession(meter: SessionMeter(service: "fake", hasSecret: true, now: SystemClock().nanoseconds()),
                                     transport: service, secret: "k", openBody: "{}", startTimeoutMs: 2_000)
        #expect(session.startThread())
        #expect(session.waitForStart() == .accepted)
        for _ in 0..<60 {
            #expect(session.permission() == .allowed)
            session.delivered(.speech)
        }
        session.finish(waitUntil: SystemClock().nanoseconds() + 2_000_000_000)
        let calls = service.calls.withLock { $0 }
        #expect(calls.count == 2)
        #expect(calls.last?.path == "/v1/sessions/f1/usage")
        #expect(calls.last?.body == #"{"seconds": 2, "talking_seconds": 2, "idle_seconds": 0, "final": true}"#)
        #expect(service.calls.withLock { $0.count } == 2, "nothing is sent after the final report")
    }

    @Test(.timeLimit(.minutes(1))) func driverRefusesAStartTheServiceDoesNotAnswer() {
        let service = FakeService()
        service.failing.withLock { $0 = true }
        let session = MeteredSession(meter: SessionMeter(service: "fake", hasSecret: true, now: SystemClock().nanoseconds()),
                                     transport: service, secret: "k", openBody: "{}", startTimeoutMs: 2_000)
        #expect(session.startThread())
        guard case .refused(let reason) = session.waitForStart() else { Issue.record("expected a refusal"); return }
        #expect(reason.contains("unreachable") && reason.contains("Connection refused"))
    }
}

extension GlobalStateTests {
/// No service unless one is configured.
@Suite struct ServiceURLTests {
    @Test func noServiceMeansUnmetered() {
        // The default: nothing configured (the test run sets no ESSENCE2_SERVICE_URL), nothing checked.
        guard Credentials.environment("ESSENCE2_SERVICE_URL") == nil, Credentials.environment("ESSENCE2_METERING_URL") == nil
        else { return }
        #expect(Credentials.serviceURL() == nil)
        if case .unmetered = SessionGate.begin(avatarPath: "/nonexistent.imx", fileBytes: []) {} else { Issue.record("expected unmetered") }
        #expect(Credentials.setServiceURL("ftp://x") != nil)
        #expect(Credentials.serviceURL() == nil)
    }

}

/// The secret's precedence is the header's for both APIs: ESSENCE2_API_SECRET before BITHUMAN_API_SECRET.
@Suite struct SecretPrecedenceTests {
    @Test func essence2SecretComesBeforeBithumans() {
        guard Credentials.storedSecret == nil, Credentials.environment("ESSENCE2_API_SECRET") == nil,
              Credentials.environment("BITHUMAN_API_SECRET") == nil else { return }
        setenv("ESSENCE2_API_SECRET", "from-essence2", 1)
        setenv("BITHUMAN_API_SECRET", "from-bithuman", 1)
        defer {
            unsetenv("ESSENCE2_API_SECRET")
            unsetenv("BITHUMAN_API_SECRET")
        }
        #expect(Credentials.resolvedSecret() == "from-essence2")
        #expect(Essence2Credential.current == "from-essence2")
        unsetenv("ESSENCE2_API_SECRET")
        #expect(Credentials.resolvedSecret() == "from-bithuman")
        #expect(Essence2Credential.current == "from-bithuman")
    }
}
}
