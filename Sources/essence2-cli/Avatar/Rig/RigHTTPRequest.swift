/// One request to the rig editor's server: its method, path, query parameters, headers (names in lower case)
/// and body.
struct RigHTTPRequest {
    var method: String
    var path: String
    var query: [String: String]
    var headers: [String: String]
    var body: [UInt8] = []

    func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The declared body length: 0 without Content-Length; throws 400 for a malformed one, 501 for
    /// Transfer-Encoding (only Content-Length bodies are read).
    func contentLength() throws(RigHTTPResponse) -> Int {
        if header("transfer-encoding") != nil {
            throw RigHTTPResponse.text(501, "Transfer-Encoding is not supported; send Content-Length")
        }
        guard let value = header("content-length") else { return 0 }
        guard !value.isEmpty, value.utf8.count <= 12, value.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let n = Int(value) else {
            throw RigHTTPResponse.text(400, "Content-Length '\(value)' is not a number")
        }
        return n
    }

    /// Parses the request line and headers (the bytes before the blank line, without it).
    static func parseHead(_ bytes: ArraySlice<UInt8>) throws(RigHTTPResponse) -> RigHTTPRequest {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw RigHTTPResponse.text(400, "the request's head is not UTF-8")
        }
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        guard !lines.isEmpty else { throw RigHTTPResponse.text(400, "empty request") }
        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1."), !requestLine[0].isEmpty,
              requestLine[1].hasPrefix("/") else {
            throw RigHTTPResponse.text(400, "malformed request line")
        }
        var headers: [String: String] = [:]
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw RigHTTPResponse.text(400, "malformed header line") }
            let name = line[..<colon].lowercased()
            guard !name.isEmpty, !name.contains(" "), !name.contains("\t") else {
                throw RigHTTPResponse.text(400, "malformed header name")
            }
            let value = String(line[line.index(after: colon)...].drop(while: { $0 == " " || $0 == "\t" })
                .reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
            if headers[name] != nil {
                guard !["host", "origin", "content-length", "x-essence2-token"].contains(name) else {
                    throw RigHTTPResponse.text(400, "header '\(name)' given more than once")
                }
                headers[name]! += ", " + value
            } else {
                headers[name] = value
            }
        }
        let target = requestLine[1]
        var path = String(target), query: [String: String] = [:]
        if let mark = target.firstIndex(of: "?") {
            path = String(target[..<mark])
            for pair in target[target.index(after: mark)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = percentDecoded(parts[0]), value = parts.count > 1 ? percentDecoded(parts[1]) : ""
                if query[name] == nil { query[name] = value }
            }
        }
        return RigHTTPRequest(method: String(requestLine[0]), path: path, query: query, headers: headers)
    }

    /// `%XX` and `+` decoded; a malformed escape is kept as written.
    static func percentDecoded(_ text: Substring) -> String {
        var out: [UInt8] = []
        let bytes = Array(text.utf8)
        var i = 0
        func hex(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: return c - 48
            case 65...70: return c - 55
            case 97...102: return c - 87
            default: return nil
            }
        }
        while i < bytes.count {
            if bytes[i] == 37, i + 2 < bytes.count, let h = hex(bytes[i + 1]), let l = hex(bytes[i + 2]) {
                out.append(h << 4 | l)
                i += 3
            } else {
                out.append(bytes[i] == 43 ? 32 : bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
