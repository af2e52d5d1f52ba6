import Testing
@testable import Essence2Runtime
@testable import Essence2Service

/// The one way an engine opens an avatar: the kind is checked with a reason that names what opens it, and an
/// unreadable file keeps the reader's reason.
@Suite struct AvatarOpeningTests {
    static let portrait = TestAvatar.repositoryRoot + "/avatars/grace-hopper.imx"
    static let character = TestAvatar.repositoryRoot + "/avatars/squirrel.imx"

    @Test func eachEngineOpensItsOwnKind() throws {
        let photoreal = try AvatarOpening.read(path: Self.portrait, for: .essence2)
        #expect(photoreal.avatar.kind == .photoreal && photoreal.path == Self.portrait && !photoreal.fileBytes.isEmpty)
        let character = try AvatarOpening.read(path: Self.character, for: .expression2)
        #expect(character.avatar.kindName == "character")
    }

    @Test func theOtherKindIsRefusedNamingTheCallsThatOpenIt() {
        func reason(_ path: String, _ engine: AvatarOpening.Engine) -> String? {
            do {
                _ = try AvatarOpening.read(path: path, for: engine)
                return nil
            } catch {
                guard case .wrongKind(let reason) = error else { return "another failure: \(error.reason)" }
                return reason
            }
        }
        let character = reason(Self.character, .essence2) ?? ""
        #expect(character.contains("be_expression2_create") && character.contains("Expression2Engine"), "\(character)")
        let portrait = reason(Self.portrait, .expression2) ?? ""
        #expect(portrait.contains("be_essence2_create") && portrait.contains("Essence2Engine"), "\(portrait)")
    }

    @Test func anUnreadableFileKeepsTheReadersReason() {
        do {
            _ = try AvatarOpening.read(path: "/nonexistent/avatar.imx", for: .essence2)
            Issue.record("a missing file was opened")
        } catch {
            guard case .unreadable(let underlying) = error else {
                Issue.record("not .unreadable: \(error.reason)")
                return
            }
            #expect(error.reason == underlying.description && !error.reason.isEmpty)
        }
    }
}
