import Essence2Runtime

/// Edits of a parsed JSON document, addressed by the order of its values (depth first, the document itself 0).
package enum JSONEdit {
    /// How many values `value` holds, itself included.
    package static func count(_ value: JSONValue) -> Int {
        switch value {
        case .array(let items): return 1 + items.reduce(0) { $0 + count($1) }
        case .object(let members): return 1 + members.reduce(0) { $0 + count($1.value) }
        default: return 1
        }
    }

    /// How many numbers `value` holds.
    package static func numberCount(_ value: JSONValue) -> Int {
        switch value {
        case .number: return 1
        case .array(let items): return items.reduce(0) { $0 + numberCount($1) }
        case .object(let members): return members.reduce(0) { $0 + numberCount($1.value) }
        default: return 0
        }
    }

    /// `value` with its `index`th value (depth first) replaced by `replacement`.
    package static func replacing(_ index: Int, in value: JSONValue, with replacement: JSONValue) -> JSONValue {
        var left = index
        return replace(value, &left) { _ in replacement }
    }

    /// `value` with its `index`th number replaced by what `transform` makes of its text.
    package static func replacingNumber(_ index: Int, in value: JSONValue, with transform: (String) -> String) -> JSONValue {
        var left = index
        return replaceNumber(value, &left, transform)
    }

    /// `value` with the member `key` of its top-level object set to `replacement` (appended when absent), or
    /// removed when `replacement` is nil.
    package static func setting(_ key: String, to replacement: JSONValue?, in value: JSONValue) -> JSONValue {
        guard case .object(var members) = value else { return value }
        if let at = members.firstIndex(where: { $0.key == key }) {
            if let replacement { members[at].value = replacement } else { members.remove(at: at) }
        } else if let replacement {
            members.append(JSONMember(key, replacement))
        }
        return .object(members)
    }

    private static func replace(_ value: JSONValue, _ left: inout Int, _ make: (JSONValue) -> JSONValue) -> JSONValue {
        if left == 0 {
            left = -1
            return make(value)
        }
        left -= 1
        guard left >= 0 else { return value }
        switch value {
        case .array(let items):
            return .array(items.map { replace($0, &left, make) })
        case .object(let members):
            return .object(members.map { JSONMember($0.key, replace($0.value, &left, make)) })
        default:
            return value
        }
    }

    private static func replaceNumber(_ value: JSONValue, _ left: inout Int, _ transform: (String) -> String) -> JSONValue {
        switch value {
        case .number(let text):
            defer { left -= 1 }
            return left == 0 ? .number(transform(text)) : value
        case .array(let items):
            return .array(items.map { replaceNumber($0, &left, transform) })
        case .object(let members):
            return .object(members.map { JSONMember($0.key, replaceNumber($0.value, &left, transform)) })
        default:
            return value
        }
    }
}
