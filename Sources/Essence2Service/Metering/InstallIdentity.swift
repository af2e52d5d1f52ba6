import Essence2Runtime
#if canImport(Glibc)
import Glibc
#endif

/// The install identifier sent when a session opens: a random UUID made once per user and kept in
/// `$XDG_STATE_HOME/essence2/install-id` (default `~/.local/state/essence2/install-id`), written atomically
/// (a temporary file linked into place, so concurrent first runs agree on one). Where no such directory can
/// be used, the process makes one for itself.
package enum InstallIdentity {
    private static let cached = Locked<String?>(nil)

    /// The identifier, read or made on first use, then kept for the process.
    package static func current() -> String {
        cached.withLock { value in
            if let value { return value }
            let made = load(path: defaultPath()) ?? randomUUID()
            value = made
            return made
        }
    }

    /// The file's path, or nil when neither XDG_STATE_HOME (absolute) nor HOME is set.
    package static func defaultPath() -> String? {
        XDGDirectory.path("XDG_STATE_HOME", homeDefault: ".local/state", "essence2/install-id")
    }

    /// The identifier stored at `path`, made and stored there first if there is none; nil when the file can
    /// be neither read nor written.
    package static func load(path: String?) -> String? {
        guard let path else { return nil }
        if let existing = read(path) { return existing }
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        BinaryFile.makeDirectories(directory)
        let made = randomUUID()
        do throws(AtomicFile.Failure) {
            let file = try AtomicFile(path: path, mode: 0o600)
            try file.write(Array((made + "\n").utf8))
            // Never replacing: when another process got there first, its identifier wins.
            try file.commit(replacing: false)
            return made
        } catch {
            return read(path)
        }
    }

    /// A well-formed identifier stored at `path`, or nil.
    static func read(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 64)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
        var text = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
        return isUUID(text) ? text : nil
    }

    /// Whether `text` is a UUID in its canonical 8-4-4-4-12 lowercase-or-uppercase hex form.
    package static func isUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (i, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(i) {
                if byte != UInt8(ascii: "-") { return false }
            } else if !(48...57).contains(byte) && !(97...102).contains(byte) && !(65...70).contains(byte) {
                return false
            }
        }
        return true
    }

    /// A random (version 4) UUID, lowercase.
    package static func randomUUID() -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for i in 0..<16 { bytes[i] = UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { byte -> String in
            let text = String(byte, radix: 16)
            return text.count == 1 ? "0" + text : text
        }.joined()
        let characters = Array(hex)
        let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }
        return groups.joined(separator: "-")
    }
}
