@testable import Essence2Runtime
@testable import Essence2Vision
@testable import Essence2Authoring

/// The shipped default avatar, read once for the tests that need a real one.
enum TestAvatar {
    static let repositoryRoot: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)  // Tests/Essence2Tests/TestAvatar.swift
        return parts.joined(separator: "/")
    }()

    static let grace: Avatar = {
        do {
            return try AvatarFile.read(path: repositoryRoot + "/avatars/grace-hopper.imx")
        } catch {
            fatalError("the shipped avatar must load: \(error)")
        }
    }()
}
