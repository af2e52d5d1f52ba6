
/// Writes `JSONValue`s as UTF-8 JSON text, indented two spaces a level; arrays of scalars stay on one line.
package enum JSONWriter {
    package static func write(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        append(value, indent: 0, to: &out)
        out.append(0x0A)
        return out
    }

    private static func append(_ value: JSONValue, indent: Int, to out: inout [UInt8]) {
        switch value {
        case .null: out += Array("null".utf8)
        case .bool(let flag): out += Array((flag ? "true" : "false").utf8)
        case .number(let literal): out += Array(literal.utf8)
        case .string(let text): appendString(text, to: &out)
        case .array(let items):
            let flat = items.allSatisfy {
                if case .array = $0 { return false }
                if case .object = $0 { return false }
                return true
            }
            if flat || items.isEmpty {
                out.append(UInt8(ascii: "["))
                for (i, item) in items.enumerated() {
                    if i > 0 { out += [UInt8(ascii: ","), 0x20] }
                    append(item, indent: indent, to: &out)
                }
                out.append(UInt8(ascii: "]"))
            } else {
                out.append(UInt8(ascii: "["))
                for (i, item) in items.enumerated() {
                    if i > 0 { out.append(UInt8(ascii: ",")) }
                    newline(indent + 1, &out)
                    append(item, indent: indent + 1, to: &out)
                }
                newline(indent, &out)
                out.append(UInt8(ascii: "]"))
            }
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, member) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(indent + 1, &out)
                appendString(member.key, to: &out)
                out += [UInt8(ascii: ":"), 0x20]
                append(member.value, indent: indent + 1, to: &out)
            }
            if !members.isEmpty { newline(indent, &out) }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(_ indent: Int, _ out: inout [UInt8]) {
        out.append(0x0A)
        out += [UInt8](repeating: 0x20, count: 2 * indent)
    }

    private static func appendString(_ text: String, to out: inout [UInt8]) {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20:
                out += Array("\\u00".utf8)
                out += [hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
