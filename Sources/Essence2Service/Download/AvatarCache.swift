import Essence2Runtime
#if canImport(Glibc)
import Glibc
#endif

/// The downloaded avatars of one directory (docs/sessions.md, Downloads): `<sha256>.imx` files, content
/// addressed, and `index`, which says for each avatar (service URL and code) which sha256 it was last and the
/// SHA-256 of each secret the service allowed to open it (never a secret itself). Every file is written
/// atomically (a temporary file in the directory, then rename), so no reader ever sees half a file; the index
/// is read, changed and replaced under an exclusive `flock` of `index.lock`, so processes do not lose entries.
package struct AvatarCache: Sendable {
    /// The directory (created on first write, mode 0700).
    package let directory: String

    package init(directory: String) {
        var directory = directory
        while directory.count > 1, directory.hasSuffix("/") { directory.removeLast() }
        self.directory = directory
    }

    /// `$XDG_CACHE_HOME/essence2/avatars` (absolute XDG_CACHE_HOME), else `$HOME/.cache/essence2/avatars`;
    /// nil when neither is set.
    package static func defaultDirectory() -> String? {
        XDGDirectory.path("XDG_CACHE_HOME", homeDefault: ".cache", "essence2/avatars")
    }

    /// One avatar's record.
    package struct Entry: Sendable, Equatable {
        /// The sha256 of the version cached last.
        package var sha256: String
        /// SHA-256 (hex) of each secret the service allowed to open this avatar.
        package var allowed: Set<String>

        package init(sha256: String, allowed: Set<String>) {
            self.sha256 = sha256
            self.allowed = allowed
        }
    }

    /// The path of the file whose content has this sha256.
    package func path(sha256: String) -> String { directory + "/" + sha256 + ".imx" }

    /// Whether the file of this sha256 is in the cache (a regular file, of `size` bytes when given).
    package func contains(sha256: String, size: Int? = nil) -> Bool {
        var info = stat()
        guard stat(path(sha256: sha256), &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return false }
        return size == nil || Int(info.st_size) == size
    }

    /// Whether the file of this sha256 is in the cache and its bytes really have that sha256 (and `size`, when
    /// given). A damaged copy is removed, so the next download replaces it instead of the engine refusing it.
    package func holdsIntact(sha256: String, size: Int? = nil) -> Bool {
        guard contains(sha256: sha256, size: size) else { return false }
        let file = path(sha256: sha256)
        guard let bytes = try? BinaryFile.read(path: file, maxSize: AvatarDownloader.maxBytes),
              SHA256.hex(SHA256.hash(bytes)) == sha256 else {
            unlink(file)
            return false
        }
        return true
    }

    /// The index keys ("service-URL code") whose last cached version is the file of `sha256`.
    package func keys(sha256: String) -> [String] {
        readIndex().filter { $0.value.sha256 == sha256 }.map(\.key).sorted()
    }

    /// The record of `key`, nil when there is none.
    package func entry(_ key: String) -> Entry? { readIndex()[key] }

    /// Changes the record of `key` (nil removes it) under the index lock; false when the index could not be
    /// written.
    @discardableResult
    package func update(_ key: String, _ change: (inout Entry?) -> Void) -> Bool {
        guard BinaryFile.makeDirectories(directory) else { return false }
        let lock = open(directory + "/index.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { return false }
        defer { close(lock) }
        flock(lock, LOCK_EX)
        defer { flock(lock, LOCK_UN) }
        var index = readIndex()
        var entry = index[key]
        change(&entry)
        index[key] = entry
        let lines = index.keys.sorted().map { key -> String in
            let entry = index[key]!
            let allowed = entry.allowed.isEmpty ? "-" : entry.allowed.sorted().joined(separator: ",")
            return Self.encoded(key) + " " + entry.sha256 + " " + allowed + "\n"
        }
        return BinaryFile.replaceAtomically(Array(lines.joined().utf8), at: directory + "/index", mode: 0o644)
    }

    /// Writes `bytes` as the file of `sha256`, atomically; false when it could not be written.
    package func store(_ bytes: [UInt8], sha256: String) -> Bool {
        guard BinaryFile.makeDirectories(directory) else { return false }
        return BinaryFile.replaceAtomically(bytes, at: path(sha256: sha256), mode: 0o644)
    }

    // MARK: Files

    /// The index is a line per avatar; more than this is not an index of ours.
    static let indexMaxSize = 64 << 20

    private func readIndex() -> [String: Entry] {
        guard let text = try? BinaryFile.read(path: directory + "/index", maxSize: Self.indexMaxSize) else {
            return [:]
        }
        var index: [String: Entry] = [:]
        for line in text.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " ")).map { String(decoding: $0, as: UTF8.self) }
            guard fields.count == 3, let key = Self.decoded(fields[0]), AvatarMetadata.isSHA256(fields[1]) else {
                continue
            }
            let allowed = fields[2] == "-" ? [] : Set(fields[2].split(separator: ",").map(String.init))
            index[key] = Entry(sha256: fields[1], allowed: allowed.filter(AvatarMetadata.isSHA256))
        }
        return index
    }

    /// `key` with spaces, commas, `%` and control bytes percent-encoded (one field of an index line).
    static func encoded(_ key: String) -> String {
        var out: [UInt8] = []
        for byte in key.utf8 {
            if byte <= 0x20 || byte == UInt8(ascii: "%") || byte == UInt8(ascii: ",") || byte == 0x7F {
                let hex = String(byte, radix: 16, uppercase: true)
                out += Array(("%" + (hex.count == 1 ? "0" : "") + hex).utf8)
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decoded(_ field: String) -> String? {
        var bytes: [UInt8] = []
        var utf8 = Array(field.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%") {
                guard utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
                else { return nil }
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
