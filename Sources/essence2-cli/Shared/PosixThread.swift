import Glibc

/// A detached POSIX thread running a closure (the bench wants its threads started at once, not pooled).
enum PosixThread {
    private final class Work {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Starts `body` on a new detached thread.
    static func start(_ body: @escaping @Sendable () -> Void) throws(CLIError) {
        let context = Unmanaged.passRetained(Work(body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<Work>.fromOpaque(raw).takeRetainedValue().body()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<Work>.fromOpaque(context).release()
            throw CLIError("cannot start a thread: \(String(cString: strerror(status)))")
        }
        pthread_detach(thread)
    }
}
