import Essence2Runtime
/// Why a session was refused.
package struct SessionRefusal: Error, Sendable, Equatable {
    package let reason: String
}
