import Glibc

/// Starts other programs (ffmpeg, or this program for a bench run) with posix_spawn and explicit descriptors.
enum ChildProcess {
    /// Starts `argv` (argv[0] searched in PATH unless it holds a slash). Descriptors not given stay this
    /// process's own; every descriptor this program opens is close-on-exec, so nothing else leaks in.
    /// `more` maps further descriptors of this process to numbers in the child (3 and up), for files the child
    /// should write by `/dev/fd/N`.
    static func spawn(_ argv: [String], stdin: Int32? = nil, stdout: Int32? = nil, stderr: Int32? = nil,
                      more: [(descriptor: Int32, as: Int32)] = []) throws(CLIError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin { posix_spawn_file_actions_adddup2(&actions, stdin, 0) }
        if let stdout { posix_spawn_file_actions_adddup2(&actions, stdout, 1) }
        if let stderr { posix_spawn_file_actions_adddup2(&actions, stderr, 2) }
        for extra in more { posix_spawn_file_actions_adddup2(&actions, extra.descriptor, extra.as) }
        var cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) }
        cArguments.append(nil)
        defer { for pointer in cArguments { free(pointer) } }
        var pid: pid_t = 0
        let status: Int32 = argv[0].contains("/")
            ? posix_spawn(&pid, argv[0], &actions, nil, cArguments, environ)
            : posix_spawnp(&pid, argv[0], &actions, nil, cArguments, environ)
        if status != 0 {
            throw CLIError("cannot start \(argv[0]): \(String(cString: strerror(status)))")
        }
        return pid
    }

    /// Waits for `pid`; returns its exit status, or 128 + the signal that ended it.
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return 127 }
        }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// A close-on-exec pipe: (read end, write end).
    static func pipe() throws(CLIError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        if Glibc.pipe(&fds) != 0 {
            throw CLIError("cannot create a pipe: \(String(cString: strerror(errno)))")
        }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        return (fds[0], fds[1])
    }

    /// Runs `argv` to the end and returns its exit status and standard output; its standard error goes to
    /// `stderr` (this process's own when `nil`).
    static func capture(_ argv: [String], stderr: Int32? = nil) throws(CLIError) -> (status: Int32, output: [UInt8]) {
        let (readEnd, writeEnd) = try pipe()
        let pid: pid_t
        do {
            pid = try spawn(argv, stdin: nil, stdout: writeEnd, stderr: stderr)
        } catch {
            close(readEnd); close(writeEnd)
            throw error
        }
        close(writeEnd)
        var output: [UInt8] = []
        var block = [UInt8](repeating: 0, count: 65536)
        while true {
            let got = block.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            if got < 0 && errno == EINTR { continue }
            if got <= 0 { break }
            output.append(contentsOf: block[0..<got])
        }
        close(readEnd)
        return (wait(pid), output)
    }

    /// The full path of `name` in PATH, if an executable file by that name is there.
    static func findInPath(_ name: String) -> String? {
        guard let path = getenv("PATH").map({ String(cString: $0) }) else { return nil }
        for directory in path.split(separator: ":", omittingEmptySubsequences: true) {
            let candidate = "\(directory)/\(name)"
            if FileCheck.isFile(candidate) && access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// The path of this program's executable.
    static func ownExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
