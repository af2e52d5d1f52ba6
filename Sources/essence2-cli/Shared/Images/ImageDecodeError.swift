/// Why a portrait could not be decoded.
struct ImageDecodeError: Error, CustomStringConvertible {
    var reason: String

    init(_ reason: String) {
        self.reason = reason
    }

    var description: String { reason }
}
