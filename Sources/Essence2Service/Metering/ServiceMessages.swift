import Essence2Runtime
/// The JSON bodies the library sends and how it reads the answers (docs/service-protocol.md). Exactly the
/// protocol's fields leave the machine: no audio, video, text or anything else about the host.
package enum ServiceMessages {
    /// `POST /v1/sessions`'s body.
    package static func openBody(avatarSHA256: String, avatarName: String, installID: String, client: String) -> String {
        "{\"avatar_sha256\": \(quoted(avatarSHA256)), \"avatar_name\": \(quoted(avatarName)), "
            + "\"install_id\": \(quoted(installID)), \"client\": \(quoted(client))}"
    }

    /// `POST /v1/sessions/{id}/usage`'s body: cumulative whole seconds.
    package static func usageBody(_ figures: UsageFigures, final: Bool) -> String {
        "{\"seconds\": \(figures.seconds), \"talking_seconds\": \(figures.talkingSeconds), "
            + "\"idle_seconds\": \(figures.idleSeconds), \"final\": \(final)}"
    }

    /// The path of a request, below the service's URL.
    package static func path(_ request: MeterRequest) -> String {
        switch request {
        case .open: return "/v1/sessions"
        case .usage(let id, _, _): return "/v1/sessions/\(percentEncoded(id))/usage"
        }
    }

    /// What an HTTP answer means for `request`: 401 final, 403 a refusal, 404/409 to a report "session gone",
    /// anything else that is not the expected success "unreachable".
    package static func reply(to request: MeterRequest, status: Int, body: [UInt8]) -> MeterReply {
        let json = try? JSONParser.parse(body)
        let reason = json?["reason"]?.stringValue ?? "no reason given"
        let code = json?["error"]?.stringValue
        switch (request, status) {
        case (.open, 201):
            guard let id = json?["session_id"]?.stringValue, !id.isEmpty else {
                return .unreachable(reason: "201 without a session_id")
            }
            let interval = json?["report_interval_s"]?.intValue ?? SessionMeter.defaultReportSeconds
            return .opened(sessionID: id, reportIntervalSeconds: interval)
        case (.usage, 200):
            return .reported
        case (_, 401):
            return .invalidSecret(reason: reason)
        case (_, 403) where code == nil || code == "AGENT_NOT_ENTITLED":
            return .notEntitled(reason: reason)
        case (.usage, 404), (.usage, 409):
            return .sessionGone(reason: "\(status) \(code ?? ""): \(reason)")
        default:
            return .unreachable(reason: "HTTP \(status)\(code.map { " \($0)" } ?? ""): \(reason)")
        }
    }

    /// `text` as a JSON string literal.
    package static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// `text` with everything but unreserved URL characters percent-encoded (a session id in a path).
    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                 UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return out
    }
}
