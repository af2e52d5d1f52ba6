import Glibc

/// The rig editor's small HTTP/1.1 server: one listening TCP socket (IPv4), connections served side by side on
/// one thread (poll), each closed after its answer. A request's head may take at most `headerLimit` bytes (its
/// blank line included) and `headerTimeout` seconds, its body at most `bodyLimit` bytes (Content-Length only)
/// and `bodyTimeout` seconds, and writing the answer `writeTimeout` seconds; a client past any of these gets 431,
/// 413 or 408 (or, while writing, is dropped), and at most `connectionLimit` connections are open (503 beyond),
/// so that slow or greedy clients cannot hold the server for others.
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
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)  // accept() in a loop until none is waiting
        listener = fd
        self.host = address
        self.port = Int(UInt16(bigEndian: actual.sin_port))
    }

    deinit { close(listener) }

    /// Answers requests with `handle` until `stop()` is true (checked at least every 200 ms). Connections are
    /// served side by side (one thread, poll): each reads its head and body at its own pace within its own
    /// deadlines, so slow clients delay no one else; at most `connectionLimit` are open at once (503 beyond).
    /// `gate` sees each request's head as soon as it is complete, before its body is read, and refuses it by
    /// returning an answer.
    func serve(gate: (RigHTTPRequest) -> RigHTTPResponse?, _ handle: (RigHTTPRequest) -> RigHTTPResponse,
               stop: () -> Bool) {
        var clients: [Connection] = []
        defer { for client in clients { close(client.fd) } }
        while !stop() {
            var waiting = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
                + clients.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            let now = Clock.now()
            let soonest = clients.map { $0.deadline - now }.min() ?? 0.2
            _ = poll(&waiting, nfds_t(waiting.count), Int32(max(0, min(0.2, soonest)) * 1000) + 1)
            if waiting[0].revents & Int16(POLLIN) != 0 {
                while true {
                    let fd = accept(listener, nil, nil)
                    guard fd >= 0 else { break }
                    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                    guard clients.count < connectionLimit else {
                        respond(fd, .text(503, "the editor has \(connectionLimit) connections open; try again"))
                        close(fd)
                        continue
                    }
                    clients.append(Connection(fd: fd, deadline: Clock.now() + headerTimeout))
                }
            }
            var open: [Connection] = []
            for (index, var client) in clients.enumerated() {
                var done = false
                // Connections accepted this round were not polled: read them at once (they do not block).
                let ready = index + 1 < waiting.count ? waiting[index + 1].revents != 0 : true
                if ready { done = progress(&client, gate, handle) }
                if !done, Clock.now() >= client.deadline {
                    let what = client.request == nil ? "head" : "body"
                    respond(client.fd, .text(408, "the request's \(what) did not arrive in time"))
                    done = true
                }
                if done { close(client.fd) } else { open.append(client) }
            }
            clients = open
        }
    }

    /// Most connections open at once.
    var connectionLimit = 64

    /// One client's request as it arrives: the bytes so far, its head once read and let through, its deadline
    /// (for the head, then for the body).
    private struct Connection {
        let fd: Int32
        var bytes: [UInt8] = []
        var request: RigHTTPRequest?
        var deadline: Double
    }

    /// Reads what `client` has sent and answers once its request is whole (or refused); true when the
    /// connection is finished (answered, or the client went away).
    private func progress(_ client: inout Connection, _ gate: (RigHTTPRequest) -> RigHTTPResponse?,
                          _ handle: (RigHTTPRequest) -> RigHTTPResponse) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(client.fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                client.bytes += chunk[..<n]
                if client.request == nil, client.bytes.count > headerLimit + 4 { break }
                if let request = client.request, let length = try? request.contentLength(), client.bytes.count >= length {
                    break
                }
                continue
            }
            if n == 0 { return true }  // the client went away
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { break }
            return true
        }
        do throws(RigHTTPResponse) {
            if client.request == nil {
                // The head, its blank line included, is at most `headerLimit` bytes; the gate sees it at once.
                guard let end = headEnd(client.bytes.prefix(headerLimit)), end + 4 <= headerLimit else {
                    if client.bytes.count >= headerLimit {
                        throw RigHTTPResponse.text(431, "the request's head is over \(headerLimit) bytes")
                    }
                    return false
                }
                let request = try RigHTTPRequest.parseHead(client.bytes[..<end])
                if let refusal = gate(request) { throw refusal }
                let length = try request.contentLength()
                guard length <= bodyLimit else {
                    throw RigHTTPResponse.text(413, "the request's body is \(length) bytes, over the limit of \(bodyLimit)")
                }
                client.bytes = Array(client.bytes[(end + 4)...])
                client.request = request
                client.deadline = Clock.now() + bodyTimeout
            }
            guard var request = client.request else { return false }
            let length = try request.contentLength()
            guard client.bytes.count >= length else { return false }
            request.body = Array(client.bytes.prefix(length))
            respond(client.fd, handle(request))
        } catch {
            respond(client.fd, error)
        }
        return true
    }

    /// Writes `response`, stops sending, and drops what the client has already sent beyond what was read (so
    /// that closing does not reset the connection before the client has read the answer), without waiting.
    private func respond(_ client: Int32, _ response: RigHTTPResponse) {
        write(client, response.bytes())
        shutdown(client, Int32(SHUT_WR))
        drain(client)
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

    /// Reads and drops what the client has sent and not been read, up to 1 MB, without waiting for more.
    private func drain(_ client: Int32) {
        var dropped = 0
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while dropped < 1 << 20 {
            let n = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if n > 0 { dropped += n; continue }
            if n < 0, errno == EINTR { continue }
            return
        }
    }

    /// Where the blank line ending the head begins ("\r\n\r\n").
    private func headEnd(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count >= 4 else { return nil }
        let start = bytes.startIndex
        for i in start...(bytes.endIndex - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i
        }
        return nil
    }
}
