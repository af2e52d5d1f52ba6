#if canImport(Glibc)
import Glibc
#endif
import Essence2Runtime

/// A stand-in for the essence2 service of docs/service-protocol.md on 127.0.0.1 (an ephemeral port), for tests
/// of the public APIs that talk to it: avatar metadata and files (`/v1/avatars/{code}`, `/file`), and sessions
/// (`/v1/sessions`, `/usage`), each answered as the protocol says. One connection at a time, `Connection: close`.
final class LoopbackService: @unchecked Sendable {
    /// The avatars served, by agent code (a test may publish a new version: `publish`).
    var avatars: [String: [UInt8]] { served.withLock { $0 } }
    private let served: Locked<[String: [UInt8]]>
    let port: UInt16
    var url: String { "http://127.0.0.1:\(port)" }
    /// Requests seen ("GET /v1/avatars/X"), in order.
    var requests: [String] { log.withLock { $0 } }

    private let listener: Int32
    private let log = Locked<[String]>([])
    private let stopped = Locked(false)
    private var thread = pthread_t()

    init(avatars: [String: [UInt8]]) throws {
        served = Locked(avatars)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw Failure("bind/listen: \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        let context = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&thread, nil, { raw in
            let service = Unmanaged<LoopbackService>.fromOpaque(raw!).takeRetainedValue()
            service.serve()
            return nil
        }, context)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Serves `bytes` as the avatar `code` from now on.
    func publish(_ code: String, _ bytes: [UInt8]) { served.withLock { $0[code] = bytes } }

    /// Stops accepting and waits for the serving thread.
    func stop() {
        stopped.withLock { $0 = true }
        shutdown(listener, Int32(SHUT_RDWR))
        pthread_join(thread, nil)
        close(listener)
    }

    private func serve() {
        while !stopped.withLock({ $0 }) {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            handle(connection)
            close(connection)
        }
    }

    private func handle(_ connection: Int32) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var headerEnd: Int?
        var contentLength = 0
        while true {
            let got = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard got > 0 else { return }
            received += buffer[0..<got]
            if headerEnd == nil, let end = Self.find(Array("\r\n\r\n".utf8), in: received) {
                headerEnd = end + 4
                let head = String(decoding: received[0..<end], as: UTF8.self).lowercased()
                for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
                    contentLength = Int(line.dropFirst("content-length:".count).trimmingPrefixSpaces()) ?? 0
                }
            }
            if let headerEnd, received.count >= headerEnd + contentLength { break }
        }
        let requestLine = String(decoding: received.prefix { $0 != 13 }, as: UTF8.self)
        let parts = requestLine.split(separator: " ")
        guard parts.count >= 2 else { return }
        let method = String(parts[0]), path = String(parts[1])
        log.withLock { $0.append(method + " " + path) }
        let (status, type, body) = answer(method: method, path: path)
        let head = "HTTP/1.1 \(status) X\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        let bytes = Array(head.utf8) + body
        var sent = 0
        while sent < bytes.count {
            let wrote = bytes[sent...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard wrote > 0 else { return }
            sent += wrote
        }
    }

    private func answer(method: String, path: String) -> (Int, String, [UInt8]) {
        let json = "application/json"
        if method == "POST", path == "/v1/sessions" {
            return (201, json, Array(#"{"session_id": "s1", "report_interval_s": 30, "avatar_code": null}"#.utf8))
        }
        if method == "POST", path.hasPrefix("/v1/sessions/"), path.hasSuffix("/usage") {
            return (200, json, Array(#"{"session_id": "s1", "billed_seconds": 1, "closed": false}"#.utf8))
        }
        if method == "GET", path.hasPrefix("/v1/avatars/") {
            let rest = path.dropFirst("/v1/avatars/".count)
            let wantsFile = rest.hasSuffix("/file")
            let code = String(wantsFile ? rest.dropLast("/file".count) : rest)
            guard let bytes = avatars[code] else {
                return (404, json, Array(#"{"error": {"code": "AVATAR_NOT_FOUND", "message": "no such avatar"}}"#.utf8))
            }
            if wantsFile { return (200, "application/octet-stream", bytes) }
            let sha = SHA256.hex(SHA256.hash(bytes))
            return (200, json, Array(#"{"code": "\#(code)", "sha256": "\#(sha)", "size": \#(bytes.count), "format_version": 1}"#.utf8))
        }
        return (404, json, Array(#"{"error": {"code": "NOT_FOUND", "message": "no such path"}}"#.utf8))
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where Array(haystack[i..<(i + needle.count)]) == needle {
            return i
        }
        return nil
    }
}

private extension Substring {
    func trimmingPrefixSpaces() -> Substring { drop { $0 == " " } }
}
