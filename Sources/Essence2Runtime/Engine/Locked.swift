#if canImport(Glibc)
import Glibc
#endif

/// A value shared between threads behind a POSIX mutex. The engine, the C interface and the Kit keep their
/// shared state in these rather than in Synchronization's `Mutex`, because ThreadSanitizer sees pthread locks
/// (it cannot see `Mutex`'s futex), so the TSan runs of `make test` check the real locking.
///
/// `@unchecked Sendable`: the value is only read or written inside `withLock`, under the mutex.
package final class Locked<Value>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
