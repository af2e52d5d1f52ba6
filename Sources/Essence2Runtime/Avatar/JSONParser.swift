/// A strict, bounds-checked JSON parser (RFC 8259): UTF-8 input only, no comments, no trailing commas,
/// no duplicate keys, no leading zeros, nesting at most `maxDepth` deep. Never traps on any input.
package struct JSONParser {
    /// Deepest nesting of arrays and objects accepted.
    static let maxDepth = 64
    /// Longest number literal accepted, in characters.
    static let maxNumberLength = 64

    private let bytes: [UInt8]
    private var position = 0

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Parses one JSON value that spans the whole of `bytes` (surrounding whitespace allowed).
    package static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.position = 3 }  // tolerate a UTF-8 byte-order mark
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.position == bytes.count else { throw parser.error("unexpected data after the JSON value") }
        return value
    }

    private func error(_ message: String) -> JSONParseError {
        JSONParseError(message: message, offset: position)
    }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(JSONParseError) {
        skipWhitespace()
        guard current == byte else { throw error("expected \(what)") }
        position += 1
    }

    private mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        guard let byte = current else { throw error("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try parseWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try parseWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try parseWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected character")
        }
    }

    private mutating func parseWord(_ word: StaticString) throws(JSONParseError) {
        let count = word.utf8CodeUnitCount
        guard bytes.count - position >= count else { throw error("unexpected end of input") }
        for i in 0..<count where bytes[position + i] != word.utf8Start[i] { throw error("invalid literal") }
        position += count
    }

    private mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= Self.maxDepth else { throw error("nesting deeper than \(Self.maxDepth)") }
        position += 1  // "{"
        var members: [JSONMember] = []
        var keys = Set<String>()
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let key = try parseString()
            guard keys.insert(key).inserted else { throw error("duplicate key \"\(key)\"") }
            try expect(UInt8(ascii: ":"), "':'")
            members.append(JSONMember(key, try parseValue(depth: depth)))
            skipWhitespace()
            guard let byte = current else { throw error("unexpected end of input in object") }
            position += 1
            if byte == UInt8(ascii: "}") { return .object(members) }
            guard byte == UInt8(ascii: ",") else {
                position -= 1
                throw error("expected ',' or '}'")
            }
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= Self.maxDepth else { throw error("nesting deeper than \(Self.maxDepth)") }
        position += 1  // "["
        var items: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            return .array(items)
        }
        while true {
            items.append(try parseValue(depth: depth))
            skipWhitespace()
            guard let byte = current else { throw error("unexpected end of input in array") }
            position += 1
            if byte == UInt8(ascii: "]") { return .array(items) }
            guard byte == UInt8(ascii: ",") else {
                position -= 1
                throw error("expected ',' or ']'")
            }
        }
    }

    private mutating func parseNumber() throws(JSONParseError) -> String {
        let start = position
        if current == UInt8(ascii: "-") { position += 1 }
        guard let first = current, isDigit(first) else { throw error("expected a digit") }
        position += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if current == UInt8(ascii: ".") {
            position += 1
            guard let byte = current, isDigit(byte) else { throw error("expected a digit after '.'") }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard let byte = current, isDigit(byte) else { throw error("expected a digit in the exponent") }
            skipDigits()
        }
        guard position - start <= Self.maxNumberLength else { throw error("number literal too long") }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func skipDigits() {
        while let byte = current, isDigit(byte) { position += 1 }
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        position += 1  // opening quote
        var text: [UInt8] = []
        while true {
            guard let byte = current else { throw error("unterminated string") }
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let string = String(validating: text, as: UTF8.self) else {
                    throw error("string is not valid UTF-8")
                }
                return string
            case UInt8(ascii: "\\"):
                try parseEscape(into: &text)
            case 0..<0x20:
                position -= 1
                throw error("control character in string")
            default:
                text.append(byte)
            }
        }
    }

    private mutating func parseEscape(into text: inout [UInt8]) throws(JSONParseError) {
        guard let byte = current else { throw error("unterminated escape") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(byte)
        case UInt8(ascii: "b"): text.append(0x08)
        case UInt8(ascii: "f"): text.append(0x0C)
        case UInt8(ascii: "n"): text.append(0x0A)
        case UInt8(ascii: "r"): text.append(0x0D)
        case UInt8(ascii: "t"): text.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xD800..<0xDC00).contains(scalar) {
                guard current == UInt8(ascii: "\\") else { throw error("lone high surrogate") }
                position += 1
                guard current == UInt8(ascii: "u") else { throw error("lone high surrogate") }
                position += 1
                let low = try parseHex4()
                guard (0xDC00..<0xE000).contains(low) else { throw error("invalid low surrogate") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw error("lone low surrogate")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid code point") }
            text.append(contentsOf: Array(String(Character(unicode)).utf8))
        default:
            position -= 1
            throw error("invalid escape")
        }
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard bytes.count - position >= 4 else { throw error("unterminated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }
}
