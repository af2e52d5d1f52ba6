#if canImport(Glibc)
import Glibc
#endif

/// The reason of the latest failed call, kept per thread (`be_essence2_last_error`).
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
    static func clear() {
        guard pthread_getspecific(key) != nil else { return }
        box().message = ""
    }
    static var current: String { pthread_getspecific(key) == nil ? "" : box().message }
}
