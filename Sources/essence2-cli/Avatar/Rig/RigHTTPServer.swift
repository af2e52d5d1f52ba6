import Glibc

/// The rig editor's small HTTP/1.1 server: one listening TCP socket (IPv4), connections answered one at a time,
/// each closed after its answer. A request's head may take at most `headerLimit` bytes and `headerTimeout`
/// seconds, its body at most `bodyLimit` bytes (Content-Length only) and `bodyTimeout` seconds, and writing the
/// answer `writeTimeout` seconds; a client past any of these gets 431, 413 or 408 (or, while writing, is
/// dropped), so that a slow or greedy client cannot hold the server.
final class RigHTTPServer {
    var headerLimit = 16 << 10
    var bodyLimit = 64 << 10
    var headerTimeout = 10.0
    var bodyTimeout = 10.0
    var writeTimeout = 10.0
    /// The address and port listened on (the port the system chose, for port 0).
    let host: String
    let port: Int
    private let listener: Int32

    /// Listens on `host` (an IPv4 address; "localhost" is 127.0.0.1) at `port` (0: any free port).
    init(host: String, port: Int) throws(CLIError) {
        let address = host == "localhost" ? "127.0.0.1" : host
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, address, &socketAddress.sin_addr) == 1 else {
            throw .usage("--host \(host) is not an IPv4 address (such as 127.0.0.1)")
        }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw CLIError("cannot open a socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw CLIError("cannot listen on \(address):\(port): \(reason)")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        self.host = address
        self.port = Int(UInt16(bigEndian: actual.sin_port))
    }

    deinit { close(listener) }

    /// Answers requests with `handle` until `stop()` is true (checked after each answer and at least every
    /// 200 ms while waiting). `gate` sees each request's head before its body is read, and refuses it by
    /// returning an answer.
    func serve(gate: (RigHTTPRequest) -> RigHTTPResponse?, _ handle: (RigHTTPRequest) -> RigHTTPResponse,
               stop: () -> Bool) {
        while !stop() {
            var waiting = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&waiting, 1, 200) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
            answer(client, gate, handle)
            close(client)
        }
    }

    private func answer(_ client: Int32, _ gate: (RigHTTPRequest) -> RigHTTPResponse?,
                        _ handle: (RigHTTPRequest) -> RigHTTPResponse) {
        var consumed = true
        let response: RigHTTPResponse
        do throws(RigHTTPResponse) {
            var request = try readRequest(client, consumed: &consumed)
            if let refusal = gate(request) {
                consumed = (try? request.contentLength()).map { $0 <= buffered.count } ?? false
                throw refusal
            }
            request.body = try readBody(client, of: request, consumed: &consumed)
            response = handle(request)
        } catch {
            guard error.status != 0 else { return }  // the client went away
            response = error
        }
        write(client, response.bytes())
        // A refused body may still be arriving: stop sending, and read a little of it so that closing does not
        // reset the connection before the client has read the answer.
        shutdown(client, Int32(SHUT_WR))
        if !consumed { drain(client) }
    }

    private var buffered: [UInt8] = []

    private func readRequest(_ client: Int32, consumed: inout Bool) throws(RigHTTPResponse) -> RigHTTPRequest {
        buffered = []
        let deadline = Clock.now() + headerTimeout
        while true {
            if let end = headEnd(buffered) {
                let head = buffered[..<end]
                buffered = Array(buffered[(end + 4)...])
                return try RigHTTPRequest.parseHead(head)
            }
            if buffered.count > headerLimit {
                consumed = false
                throw RigHTTPResponse.text(431, "the request's head is over \(headerLimit) bytes")
            }
            guard let chunk = try receive(client, deadline: deadline, what: "head") else {
                throw RigHTTPResponse(status: 0, contentType: "", body: [])
            }
            buffered += chunk
        }
    }

    private func readBody(_ client: Int32, of request: RigHTTPRequest,
                          consumed: inout Bool) throws(RigHTTPResponse) -> [UInt8] {
        let length = try request.contentLength()
        guard length <= bodyLimit else {
            consumed = false
            throw RigHTTPResponse.text(413, "the request's body is \(length) bytes, over the limit of \(bodyLimit)")
        }
        let deadline = Clock.now() + bodyTimeout
        var body = buffered
        while body.count < length {
            guard let chunk = try receive(client, deadline: deadline, what: "body") else {
                throw RigHTTPResponse(status: 0, contentType: "", body: [])
            }
            body += chunk
        }
        if body.count > length { body.removeLast(body.count - length) }
        return body
    }

    /// Up to 16 KB from the client; nil when it closed the connection; 408 at the deadline.
    private func receive(_ client: Int32, deadline: Double, what: String) throws(RigHTTPResponse) -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let left = deadline - Clock.now()
            guard left > 0 else {
                throw RigHTTPResponse.text(408, "the request's \(what) did not arrive in time")
            }
            var waiting = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            let ready = poll(&waiting, 1, Int32(min(left * 1000 + 1, 1000)))
            if ready < 0, errno != EINTR { return nil }
            guard ready > 0 else { continue }
            let n = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if n > 0 { return Array(chunk[..<n]) }
            if n == 0 { return nil }
            if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR { return nil }
        }
    }

    private func write(_ client: Int32, _ bytes: [UInt8]) {
        let deadline = Clock.now() + writeTimeout
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { send(client, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if n > 0 {
                sent += n
                continue
            }
            guard n < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else { return }
            let left = deadline - Clock.now()
            guard left > 0 else { return }
            var waiting = pollfd(fd: client, events: Int16(POLLOUT), revents: 0)
            _ = poll(&waiting, 1, Int32(min(left * 1000 + 1, 1000)))
        }
    }

    /// Reads and drops what the client still sends, for at most half a second or 1 MB.
    private func drain(_ client: Int32) {
        let deadline = Clock.now() + 0.5
        var dropped = 0
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while dropped < 1 << 20 {
            let left = deadline - Clock.now()
            guard left > 0 else { return }
            var waiting = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            guard poll(&waiting, 1, Int32(left * 1000 + 1)) > 0 else { return }
            let n = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if n <= 0 && !(n < 0 && (errno == EAGAIN || errno == EINTR)) { return }
            dropped += max(n, 0)
        }
    }

    /// Where the blank line ending the head begins ("\r\n\r\n").
    private func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i
        }
        return nil
    }
}
