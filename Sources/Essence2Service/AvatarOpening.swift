import Essence2Runtime

/// Opening an avatar for an engine, the one way every interface does it (`be_essence2_create`,
/// `be_expression2_create`, `Essence2Engine.create`, `Expression2Engine.create`): read the `.imx` whole (its bytes
/// name it to the metering service), refuse an avatar of the other engine's kind with a reason that says what to
/// open it with, then admit the session (docs/sessions.md).
package struct AvatarOpening: Sendable {
    /// The engine an avatar is opened for.
    package enum Engine: Sendable {
        /// Essence 2: photoreal portraits, 25 frames a second.
        case essence2
        /// Expression 2: characters, 20 frames a second.
        case expression2
    }

    /// Why an avatar could not be opened.
    package enum Failure: Error, Sendable {
        /// The file could not be read or is not a valid `.imx` (`AvatarFileError.isOutdated` when a newer build of
        /// the library wrote it).
        case unreadable(AvatarFileError)
        /// The avatar is the other engine's kind (the reason names the calls that open it).
        case wrongKind(reason: String)
        /// The metering service refused the session.
        case refused(SessionRefusal)

        /// The failure in words.
        package var reason: String {
            switch self {
            case .unreadable(let error): error.description
            case .wrongKind(let reason): reason
            case .refused(let refusal): refusal.reason
            }
        }
    }

    /// The path the avatar was read from.
    package let path: String
    package let avatar: Avatar
    /// The file's bytes, as read.
    package let fileBytes: [UInt8]

    /// Reads the avatar at `path` and checks that `engine` renders its kind.
    package static func read(path: String, for engine: Engine) throws(Failure) -> AvatarOpening {
        let read: (avatar: Avatar, bytes: [UInt8])
        do {
            read = try AvatarFile.readKeepingBytes(path: path)
        } catch {
            throw .unreadable(error)
        }
        switch (engine, read.avatar.kind) {
        case (.essence2, .photoreal), (.expression2, .character):
            return AvatarOpening(path: path, avatar: read.avatar, fileBytes: read.bytes)
        case (.essence2, .character):
            throw .wrongKind(reason: "\(path) is a character avatar (Expression 2, 20 frames a second): open it with "
                + "be_expression2_create (C, include/expression2.h) or Expression2Engine (Swift, import Expression2)")
        case (.expression2, .photoreal):
            throw .wrongKind(reason: "\(path) is a photoreal avatar (Essence 2, 25 frames a second): open it with "
                + "be_essence2_create (C) or Essence2Engine (Swift); Expression 2 takes character avatars "
                + "(essence2 avatar build PICTURE --character)")
        }
    }

    /// Admits the session for this avatar (blocking at most the start timeout): nil when no service is configured.
    package func admit() throws(Failure) -> MeteredSession? {
        switch SessionGate.admit(avatarPath: path, fileBytes: fileBytes) {
        case .success(let session): return session
        case .failure(let refusal): throw .refused(refusal)
        }
    }

    /// `read`, then `admit`: the avatar and its session.
    package static func open(path: String, for engine: Engine) throws(Failure) -> (AvatarOpening, MeteredSession?) {
        let opening = try read(path: path, for: engine)
        return (opening, try opening.admit())
    }
}
