/// One `"key": value` member of a JSON object.
package struct JSONMember: Sendable, Equatable {
    package var key: String
    package var value: JSONValue

    package init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}
