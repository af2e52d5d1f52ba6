#if canImport(Glibc)
import Glibc
#endif
import Essence2Runtime

/// Files of this repository the harnesses start from (the sample avatars, the models). The root is
/// `ESSENCE2_ROOT` when set, otherwise the checkout these sources were compiled from.
package enum FuzzRepository {
    package static var root: String {
        if let value = getenv("ESSENCE2_ROOT"), let text = String(validatingCString: value), !text.isEmpty { return text }
        // This file is fuzz/Sources/FuzzSupport/FuzzRepository.swift: four levels below the root.
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(4)
        return parts.joined(separator: "/")
    }

    /// The bytes of `relative` (a path from the root); a missing file ends the harness at startup, naming it.
    package static func file(_ relative: String) -> [UInt8] {
        do {
            return try BinaryFile.read(path: root + "/" + relative, maxSize: AvatarFileFormat.maxFileSize)
        } catch {
            fatalError("fuzz harness: cannot read \(root)/\(relative): \(error)")
        }
    }

    /// The avatar in `relative`, read and validated by the library's reader.
    package static func avatar(_ relative: String) -> Avatar {
        do {
            return try AvatarFile.read(bytes: file(relative))
        } catch {
            fatalError("fuzz harness: \(relative) is not a valid avatar: \(error)")
        }
    }
}
