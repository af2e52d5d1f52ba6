/// One answer of the rig editor's server. It is also what request handling throws for a refusal (403, 400 ...).
struct RigHTTPResponse: Error {
    var status: Int
    var contentType: String
    var body: [UInt8]
    var extraHeaders: [(String, String)] = []

    static func text(_ status: Int, _ message: String) -> RigHTTPResponse {
        RigHTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array((message + "\n").utf8))
    }

    static func json(_ bytes: [UInt8]) -> RigHTTPResponse {
        RigHTTPResponse(status: 200, contentType: "application/json", body: bytes)
    }

    static func png(_ bytes: [UInt8]) -> RigHTTPResponse {
        RigHTTPResponse(status: 200, contentType: "image/png", body: bytes)
    }

    /// The page, with a policy that lets it load nothing but itself and this server.
    static func html(_ text: String) -> RigHTTPResponse {
        RigHTTPResponse(status: 200, contentType: "text/html; charset=utf-8", body: Array(text.utf8), extraHeaders: [
            ("Content-Security-Policy", "default-src 'none'; img-src 'self' blob:; style-src 'unsafe-inline'; "
                + "script-src 'unsafe-inline'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
            ("X-Frame-Options", "DENY"),
        ])
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 400: return "Bad Request"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 413: return "Content Too Large"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        default: return "Status"
        }
    }

    /// The status line, headers and body as sent (every connection is closed after one answer).
    func bytes() -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        head += "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
        head += "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n"
        for (name, value) in extraHeaders { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        return Array(head.utf8) + body
    }
}
