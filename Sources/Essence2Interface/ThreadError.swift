#if canImport(Glibc)
import Glibc
#endif

/// The reason of the latest failed call, kept per thread (`be_essence2_last_error`). Every entry point sets it
/// when it fails and clears it when it succeeds, as include/essence2.h states function by function.
enum ThreadError {
    private final class Box {
        var message: String
        init(_ message: String) { self.message = message }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { raw in
            guard let raw else { return }
            Unmanaged<Box>.fromOpaque(raw).release()
        }
        return key
    }()

    private static func box() -> Box {
        if let raw = pthread_getspecific(key) {
            return Unmanaged<Box>.fromOpaque(raw).takeUnretainedValue()
        }
        let box = Box("")
        pthread_setspecific(key, Unmanaged.passRetained(box).toOpaque())
        return box
    }

    static func set(_ message: String) { box().message = message }

    /// Clears the reason; costs nothing on a thread that never failed.
    static func clear() {
        guard let raw = pthread_getspecific(key) else { return }
        let box = Unmanaged<Box>.fromOpaque(raw).takeUnretainedValue()
        if !box.message.isEmpty { box.message = "" }
    }

    static var current: String { pthread_getspecific(key) == nil ? "" : box().message }
}

/// Records the reason of a failure for `be_essence2_last_error` and returns its code.
func fail<Code: BinaryInteger>(_ code: Code, _ reason: String) -> Code {
    ThreadError.set(reason)
    return code
}

/// Clears the calling thread's reason and returns `value`: the end of every successful call.
func succeed<Value>(_ value: Value) -> Value {
    ThreadError.clear()
    return value
}

/// The reason recorded for a handle that is NULL, unknown or destroyed.
let unknownHandle = "unknown or destroyed handle (NULL, never returned by be_essence2_create, or already destroyed)"
/// The same for the be_expression2_* functions, naming their own create call.
let unknownExpressionHandle = "unknown or destroyed handle (NULL, never returned by be_expression2_create, or already destroyed)"
