/// Why a JSON text was rejected, with the byte offset at which parsing stopped.
package struct JSONParseError: Error, Sendable, CustomStringConvertible {
    var message: String
    var offset: Int

    package var description: String { "\(message) at byte \(offset)" }
}
