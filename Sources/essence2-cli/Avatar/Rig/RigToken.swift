import Glibc

/// The rig editor's per-run secret: 16 bytes from /dev/urandom as 32 hex digits. Every request carries it (in
/// the address's `token=` or the `X-Essence2-Token` header), so that other pages and users cannot reach the
/// editor's server.
enum RigToken {
    static func make() throws(CLIError) -> String {
        let fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CLIError("cannot open /dev/urandom for the editor's token") }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 16)
        var got = 0
        while got < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + got, $0.count - got) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw CLIError("cannot read /dev/urandom for the editor's token") }
            got += n
        }
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    /// Whether `given` is `token`, compared in time that does not depend on where they differ.
    static func matches(_ given: String?, _ token: String) -> Bool {
        guard let given else { return false }
        let a = Array(given.utf8), b = Array(token.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<a.count { difference |= a[i] ^ b[i] }
        return difference == 0
    }
}
