/// Small path-string helpers (no file system access).
enum PathName {
    /// The last component: "/a/b.wav" -> "b.wav".
    static func base(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        if let slash = trimmed.lastIndex(of: "/") { return String(trimmed[trimmed.index(after: slash)...]) }
        return String(trimmed)
    }

    /// The directory part: "/a/b.wav" -> "/a", "b.wav" -> ".", "/b" -> "/".
    static func directory(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let head = path[..<slash]
        return head.isEmpty ? "/" : String(head)
    }

    /// The extension in lower case without the dot ("" when none): "a/B.MP4" -> "mp4".
    static func fileExtension(_ path: String) -> String {
        let name = base(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    /// The path with its extension replaced (or added): ("out.mp4", "wav") -> "out.wav".
    static func replacingExtension(_ path: String, with newExtension: String) -> String {
        let name = base(path)
        var stem = path
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            stem = String(path.dropLast(name.distance(from: dot, to: name.endIndex)))
        }
        return "\(stem).\(newExtension)"
    }
}
