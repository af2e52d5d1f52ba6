/// Who may talk to the rig editor's server: every request carries the run's token (`token=` in the address or
/// the `X-Essence2-Token` header), names the server as its Host (127.0.0.1:PORT or localhost:PORT, or the
/// `--host` address) so that another site's name resolved to this machine (DNS rebinding) is refused, and,
/// when a browser adds an Origin, comes from the page's own origin (http:// and that Host). Else 403.
struct RigGate {
    var token: String
    /// The Host values accepted ("127.0.0.1:8080", "localhost:8080", ...).
    var hosts: Set<String>

    init(token: String, port: Int, host: String) {
        self.token = token
        var names = ["127.0.0.1", "localhost"]
        if host != "0.0.0.0", !names.contains(host) { names.append(host) }
        hosts = Set(names.map { "\($0):\(port)" })
    }

    func refusal(of request: RigHTTPRequest) -> RigHTTPResponse? {
        guard let host = request.header("host"), hosts.contains(host.lowercased()) else {
            return .text(403, "forbidden: the Host header must be one of \(hosts.sorted().joined(separator: ", "))")
        }
        if let origin = request.header("origin"), origin.lowercased() != "http://" + host.lowercased() {
            return .text(403, "forbidden: requests from \(origin) are not accepted, only from the editor's page")
        }
        if let site = request.header("sec-fetch-site"), site != "same-origin", site != "none" {
            return .text(403, "forbidden: a cross-site request (Sec-Fetch-Site: \(site))")
        }
        guard RigToken.matches(request.header("x-essence2-token") ?? request.query["token"], token) else {
            return .text(403, "forbidden: the request does not carry this run's token (open the address the command printed)")
        }
        return nil
    }
}
