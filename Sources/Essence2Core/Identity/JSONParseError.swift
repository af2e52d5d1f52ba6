/// Why a JSON text was rejected, with the byte offset at which parsing stopped.
struct JSONParseError: Error, Sendable, CustomStringConvertible {
    var message: String
    var offset: Int

    var description: String { "\(message) at byte \(offset)" }
}
