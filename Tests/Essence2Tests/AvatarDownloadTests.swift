import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import Essence2Runtime
@testable import Essence2Service

/// The download cache (docs/sessions.md, Downloads) on a fake service: what is asked, what is written, what is
/// handed out to which secret, online, offline and in the background.
@Suite struct AvatarDownloadTests {
    /// A service of avatars by code, counting requests; `online` false answers nothing, `corrupt` sends other
    /// bytes than the metadata's.
    final class FakeService: DownloadTransport, @unchecked Sendable {
        private let lock = Locked(State())
        struct State {
            var files: [String: [UInt8]] = [:]
            var formatVersion = 1
            var entitled: Set<String> = []
            var online = true
            var corrupt = false
            var requests: [String] = []
            /// The `maxBytes` each request allowed, in order.
            var limits: [Int] = []
        }

        func change(_ body: (inout State) -> Void) { lock.withLock { body(&$0) } }
        var requests: [String] { lock.withLock { $0.requests } }
        var fileRequests: Int { requests.filter { $0.hasSuffix("/file") }.count }
        var limits: [Int] { lock.withLock { $0.limits } }

        func get(path: String, secret: String, timeoutMs: Int, maxBytes: Int) -> ServiceAnswer {
            lock.withLock { state in
                state.requests.append(path)
                state.limits.append(maxBytes)
                guard state.online else { return .failed(reason: "Couldn't connect to server") }
                let parts = path.split(separator: "/").map(String.init)  // v1 avatars CODE [file]
                guard parts.count >= 3, let bytes = state.files[parts[2]] else {
                    return .answered(status: 404, body: Array(#"{"error": "NOT_FOUND", "reason": "no"}"#.utf8))
                }
                guard state.entitled.contains(secret) else {
                    return .answered(status: 403, body: Array(#"{"error": "AGENT_NOT_ENTITLED", "reason": "no"}"#.utf8))
                }
                if parts.count == 4 {
                    let body = state.corrupt ? bytes + [0] : bytes
                    // As the real transport: a body longer than allowed stops the transfer.
                    guard body.count <= maxBytes else { return .failed(reason: "the answer is larger than \(maxBytes) bytes") }
                    return .answered(status: 200, body: body)
                }
                let sha = SHA256.hex(SHA256.hash(bytes))
                return .answered(status: 200, body: Array(
                    #"{"code": "\#(parts[2])", "sha256": "\#(sha)", "size": \#(bytes.count), "format_version": \#(state.formatVersion)}"#.utf8))
            }
        }
    }

    /// Background work, run when the test says.
    final class Deferred: @unchecked Sendable {
        private let lock = Locked<[@Sendable () -> Void]>([])
        func add(_ work: @escaping @Sendable () -> Void) { lock.withLock { $0.append(work) } }
        func runAll() { for work in lock.withLock({ w in defer { w = [] }; return w }) { work() } }
        var count: Int { lock.withLock { $0.count } }
    }

    static func temporaryDirectory() -> String {
        var template = Array("/tmp/essence2-download-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        return String(cString: made!)
    }

    static func contents(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buffer, 1, buffer.count, file)
            if n <= 0 { break }
            out += buffer[0..<n]
        }
        return out
    }

    static func names(_ directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    let v1: [UInt8] = Array("version one of the avatar".utf8)
    let v2: [UInt8] = Array("version two, registered later".utf8)

    func downloader(_ service: FakeService, _ directory: String, secret: String = "s1",
                    deferred: Deferred = Deferred()) -> AvatarDownloader {
        AvatarDownloader(transport: service, cache: AvatarCache(directory: directory), serviceURL: "http://fake",
                         secret: secret, spawn: { deferred.add($0) })
    }

    @Test func downloadsVerifiesAndCachesByContent() throws {
        let service = FakeService()
        service.change { $0.files["grace"] = v1; $0.entitled = ["s1"] }
        let directory = Self.temporaryDirectory()
        let path = try downloader(service, directory).fetch(code: "grace").get()
        let sha = SHA256.hex(SHA256.hash(v1))
        #expect(path == directory + "/" + sha + ".imx")
        #expect(Self.contents(path) == v1)
        #expect(service.requests == ["/v1/avatars/grace", "/v1/avatars/grace/file"])
        // The index keeps the secret's SHA-256, never the secret.
        let index = String(decoding: Self.contents(directory + "/index") ?? [], as: UTF8.self)
        #expect(index.contains(SHA256.hex(SHA256.hash(Array("s1".utf8)))))
        #expect(!index.contains(" s1"))
        #expect(Self.names(directory) == [sha + ".imx", "index", "index.lock"])
    }

    @Test func aLongerFileThanTheMetadataSaysStopsAtItsSizeAndNothingIsWritten() {
        let service = FakeService()
        service.change { $0.files["grace"] = v1; $0.entitled = ["s1"]; $0.corrupt = true }
        let directory = Self.temporaryDirectory()
        guard case .failure(.unavailable(let reason)) = downloader(service, directory).fetch(code: "grace") else {
            Issue.record("a file longer than the metadata's must be refused")
            return
        }
        // The transfer was allowed exactly the metadata's size (not the 512 MiB limit), so it stopped there.
        #expect(service.limits.last == v1.count)
        #expect(reason.contains("larger than \(v1.count) bytes"))
        #expect(Self.names(directory).allSatisfy { !$0.hasSuffix(".imx") && !$0.contains(".tmp.") })
    }

    @Test func aFileOfTheRightSizeButOtherBytesIsRefusedAndNothingWritten() {
        let service = FakeService()
        var other = v1
        other[0] ^= 1
        service.change { $0.files["grace"] = v1; $0.entitled = ["s1"] }
        let directory = Self.temporaryDirectory()
        // The metadata describes v1; the file sent has one flipped bit.
        final class Swapping: DownloadTransport, @unchecked Sendable {
            let inner: FakeService
            let other: [UInt8]
            init(_ inner: FakeService, _ other: [UInt8]) { self.inner = inner; self.other = other }
            func get(path: String, secret: String, timeoutMs: Int, maxBytes: Int) -> ServiceAnswer {
                let answer = inner.get(path: path, secret: secret, timeoutMs: timeoutMs, maxBytes: maxBytes)
                guard path.hasSuffix("/file"), case .answered(let status, _) = answer else { return answer }
                return .answered(status: status, body: other)
            }
        }
        let swapping = AvatarDownloader(transport: Swapping(service, other), cache: AvatarCache(directory: directory),
                                        serviceURL: "http://fake", secret: "s1", spawn: { _ in })
        guard case .failure(.mismatch(let reason)) = swapping.fetch(code: "grace") else {
            Issue.record("a file other than the metadata's must be refused")
            return
        }
        #expect(reason.contains("nothing written"))
        #expect(Self.names(directory).allSatisfy { !$0.hasSuffix(".imx") && !$0.contains(".tmp.") })
    }

    @Test func aDamagedCachedCopyIsNeverHandedOutAndIsFetchedAgain() throws {
        let service = FakeService()
        service.change { $0.files["grace"] = v1; $0.entitled = ["s1"] }
        let directory = Self.temporaryDirectory()
        let deferred = Deferred()
        let path = try downloader(service, directory, deferred: deferred).fetch(code: "grace").get()
        // One flipped byte in the cached file, same name and size.
        var damaged = try #require(Self.contents(path))
        damaged[3] ^= 0x40
        #expect(BinaryFile.replaceAtomically(damaged, at: path, mode: 0o644))
        let files = service.fileRequests
        let again = try downloader(service, directory, deferred: deferred).fetch(code: "grace").get()
        #expect(again == path)
        #expect(Self.contents(again) == v1, "the damaged copy was handed out")
        #expect(service.fileRequests == files + 1, "the file was fetched again")
    }

    @Test func aRelativeCacheDirectoryStaysRelative() throws {
        let name = ".build/essence2-relative-cache-\(getpid())"
        defer { _ = system("rm -rf '\(name)'") }
        let service = FakeService()
        service.change { $0.files["grace"] = v1; $0.entitled = ["s1"] }
        let path = try downloader(service, name + "/avatars").fetch(code: "grace").get()
        #expect(path.hasPrefix(name + "/avatars/"))
        #expect(Self.contents(path) == v1)
        var info = stat()
        #expect(stat("/" + name, &info) != 0, "a directory of that name was made at /")
    }

    @Test func cachedCopyAtOnceThenBackgroundRevalidation() throws {
        let service = FakeService()
        service.change { $0.files["grace"] = v1; $0.entitled = ["s1"] }
        let directory = Self.temporaryDirectory()
        let deferred = Deferred()
        let first = try downloader(service, directory, deferred: deferred).fetch(code: "grace").get()
        #expect(deferred.count == 0)
        let before = service.requests.count
        // Cached: returned without a request; one revalidation waits in the background.
        #expect(try downloader(service, directory, deferred: deferred).fetch(code: "grace").get() == first)
        #expect(service.requests.count == before)
        #expect(deferred.count == 1)
        deferred.runAll()
        #expect(service.requests.count == before + 1)  // the metadata only: nothing new
        #expect(service.fileRequests == 1)
        // A newer version under the same code: the background check fetches it for the next call.
        service.change { $0.files["grace"] = v2 }
        #expect(try downloader(service, directory, deferred: deferred).fetch(code: "grace").get() == first)
        deferred.runAll()
        let next = try downloader(service, directory, deferred: deferred).fetch(code: "grace").get()
        #expect(Self.contents(next) == v2)
        #expect(service.fileRequests == 2)
    }

    @Test func offlineOnlyForASecretAllowedBefore() throws {
        let service = FakeService()
        service.change { $0.files["grace"] = v1; $0.entitled = ["s1", "s2"] }
        let directory = Self.temporaryDirectory()
        let path = try downloader(service, directory).fetch(code: "grace").get()
        service.change { $0.online = false }
        #expect(try downloader(service, directory).fetch(code: "grace", background: false).get() == path)
        #expect(try downloader(service, directory).fetch(code: "grace").get() == path)
        // s2 is entitled but was never allowed by an answer: nothing for it offline.
        guard case .failure(.unavailable(let reason)) = downloader(service, directory, secret: "s2").fetch(code: "grace")
        else {
            Issue.record("offline, a secret never allowed gets nothing")
            return
        }
        #expect(reason.contains("did not answer"))
        guard case .failure(.unavailable) = downloader(service, Self.temporaryDirectory()).fetch(code: "grace") else {
            Issue.record("offline with an empty cache fails")
            return
        }
    }

    @Test func refusalWinsOverTheCacheAndForgetsThePermission() throws {
        let service = FakeService()
        service.change { $0.files["grace"] = v1; $0.entitled = ["s1"] }
        let directory = Self.temporaryDirectory()
        _ = try downloader(service, directory).fetch(code: "grace").get()
        // Another secret, not entitled: refused although the file is cached.
        guard case .failure(.refused) = downloader(service, directory, secret: "other").fetch(code: "grace") else {
            Issue.record("a secret the service refuses gets nothing")
            return
        }
        // s1 loses its entitlement: asked first, refused at once; in the background, the next call is.
        service.change { $0.entitled = [] }
        guard case .failure(.refused) = downloader(service, directory).fetch(code: "grace", background: false) else {
            Issue.record("refused when asked first")
            return
        }
        service.change { $0.online = false }
        guard case .failure(.unavailable) = downloader(service, directory).fetch(code: "grace") else {
            Issue.record("the permission is forgotten: nothing offline")
            return
        }
    }

    @Test func backgroundRefusalTakesEffectOnTheNextCall() throws {
        let service = FakeService()
        service.change { $0.files["grace"] = v1; $0.entitled = ["s1"] }
        let directory = Self.temporaryDirectory()
        let deferred = Deferred()
        _ = try downloader(service, directory, deferred: deferred).fetch(code: "grace").get()
        service.change { $0.entitled = [] }
        _ = try downloader(service, directory, deferred: deferred).fetch(code: "grace").get()
        deferred.runAll()
        guard case .failure(.refused) = downloader(service, directory, deferred: deferred).fetch(code: "grace") else {
            Issue.record("refused after the background check")
            return
        }
    }

    @Test func newerFormatIsOutdatedAndNotDownloaded() {
        let service = FakeService()
        service.change { $0.files["grace"] = v1; $0.entitled = ["s1"]; $0.formatVersion = Int(AvatarFileFormat.version) + 1 }
        let directory = Self.temporaryDirectory()
        guard case .failure(.outdated(let path, let reason)) = downloader(service, directory).fetch(code: "grace") else {
            Issue.record("a newer format is outdated")
            return
        }
        #expect(path.hasSuffix(".imx"))
        #expect(reason.contains("format version"))
        #expect(service.fileRequests == 0)
        guard case .failure(.unavailable) = downloader(service, directory).fetch(code: "nobody") else {
            Issue.record("404 is unavailable")
            return
        }
    }

    @Test func indexKeysSurviveOddCodes() {
        let cache = AvatarCache(directory: Self.temporaryDirectory())
        let sha = String(repeating: "a", count: 64)
        let key = "http://x grâce 100%,ok\n"
        #expect(cache.update(key) { $0 = AvatarCache.Entry(sha256: sha, allowed: [sha]) })
        #expect(cache.entry(key) == AvatarCache.Entry(sha256: sha, allowed: [sha]))
        #expect(AvatarMetadata.parse(Array(#"{"sha256": "AB", "size": 1}"#.utf8)) == nil)
    }
}
