import FoundationEssentials
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import Essence2Runtime

/// The package's one atomic writer: a file appears whole under its name or not at all, and nothing is left
/// beside it.
@Suite struct AtomicFileTests {
    static func directory() -> String {
        let path = "/tmp/essence2-atomic-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        _ = BinaryFile.makeDirectories(path)
        return path
    }

    static func contents(_ path: String) -> String? {
        (try? Data(contentsOf: URL(fileURLWithPath: path))).map { String(decoding: $0, as: UTF8.self) }
    }

    static func entries(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    @Test func aCommittedFileReplacesTheOldOneWithItsMode() throws {
        let dir = Self.directory()
        defer { _ = system("rm -rf '\(dir)'") }
        let path = dir + "/out.txt"
        #expect(BinaryFile.replaceAtomically(Array("old".utf8), at: path, mode: 0o644))
        let file = try AtomicFile(path: path, mode: 0o600)
        try file.write(Array("new".utf8))
        #expect(Self.contents(path) == "old", "the old file stays whole until the commit")
        try file.commit()
        #expect(Self.contents(path) == "new")
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(Self.entries(dir) == ["out.txt"])
    }

    @Test func aDiscardedFileLeavesNothing() throws {
        let dir = Self.directory()
        defer { _ = system("rm -rf '\(dir)'") }
        let path = dir + "/out.txt"
        #expect(BinaryFile.replaceAtomically(Array("old".utf8), at: path, mode: 0o644))
        do {
            let file = try AtomicFile(path: path)
            try file.write(Array("half".utf8))
            file.discard()
            #expect(throws: AtomicFile.Failure(code: EBADF)) { try file.commit() }
        }
        do {
            let dropped = try AtomicFile(path: dir + "/never.txt")
            try dropped.write(Array("x".utf8))
        }  // released without a commit
        #expect(Self.contents(path) == "old")
        #expect(Self.entries(dir) == ["out.txt"])
    }

    @Test func withoutReplacingTheFirstFileWins() throws {
        let dir = Self.directory()
        defer { _ = system("rm -rf '\(dir)'") }
        let path = dir + "/id"
        let first = try AtomicFile(path: path), second = try AtomicFile(path: path)
        try first.write(Array("first".utf8))
        try second.write(Array("second".utf8))
        try first.commit(replacing: false)
        #expect(throws: AtomicFile.Failure(code: EEXIST)) { try second.commit(replacing: false) }
        #expect(Self.contents(path) == "first")
        #expect(Self.entries(dir) == ["id"])
    }

    @Test func aMissingDirectoryIsAnErrorNotAFile() {
        #expect(throws: AtomicFile.Failure(code: ENOENT)) { try AtomicFile(path: "/nonexistent-essence2/dir/out") }
        #expect(!BinaryFile.replaceAtomically([1, 2, 3], at: "/nonexistent-essence2/dir/out", mode: 0o644))
        #expect(errno == ENOENT)
    }
}
