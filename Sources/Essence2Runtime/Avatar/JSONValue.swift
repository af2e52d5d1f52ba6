/// A parsed JSON value (RFC 8259). Numbers keep their literal text so integers are read exactly.
package indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number's literal text, already checked against the JSON number grammar.
    case number(String)
    case string(String)
    case array([JSONValue])
    /// Members in file order; keys are unique.
    case object([JSONMember])

    /// The member named `key` of an object, or nil.
    package subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    package var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    package var arrayValue: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    package var objectValue: [JSONMember]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The number as a Double (nil for non-numbers and for literals outside Double's finite range).
    package var doubleValue: Double? {
        guard case .number(let literal) = self, let value = Double(literal), value.isFinite else { return nil }
        return value
    }

    /// The number as an Int, only when its literal is an integer in range (no fraction, no exponent).
    package var intValue: Int? {
        guard case .number(let literal) = self else { return nil }
        return Int(literal)
    }

    /// A short name of the value's type, for error messages.
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}
