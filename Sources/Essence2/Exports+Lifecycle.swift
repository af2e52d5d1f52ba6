import Essence2Core

#if canImport(Glibc)
import Glibc
#endif

// Credentials, lifecycle and library information. Every thunk checks its arguments, maps errors to the
// stable codes of include/essence2.h and calls the core; nothing here traps on caller input.

@_cdecl("be_essence2_set_api_secret")
public func be_essence2_set_api_secret(_ secret: UnsafePointer<CChar>?) -> Int32 {
    Credentials.setSecret(secret.map { String(cString: $0) })
    return 0
}

@_cdecl("be_essence2_last_refusal")
public func be_essence2_last_refusal(_ out: UnsafeMutablePointer<CChar>?, _ capacity: Int32) -> Int32 {
    copyCString(Credentials.lastRefusal, to: out, capacity: capacity)
}

@_cdecl("be_essence2_last_error")
public func be_essence2_last_error(_ out: UnsafeMutablePointer<CChar>?, _ capacity: Int32) -> Int32 {
    copyCString(ThreadError.current, to: out, capacity: capacity)
}

@_cdecl("be_essence2_create")
public func be_essence2_create(
    _ path: UnsafePointer<CChar>?, _ motionDir: UnsafePointer<CChar>?, _ chunk: Int32,
    _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    out?.pointee = nil
    guard let path, let out else { return fail(-1, "imx_path and out must not be NULL") }
    guard (0...65_536).contains(chunk) else { return fail(-1, "chunk \(chunk) is out of range (pass 0)") }
    if let motionDir {
        var info = stat()
        guard stat(motionDir, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            return fail(-1, "motion_dir '\(String(cString: motionDir))' is not a directory")
        }
    }
    let avatar: Avatar
    do {
        avatar = try AvatarFile.read(path: String(cString: path))
    } catch {
        return fail(-2, error.description)
    }
    if let refusal = Credentials.admitSession() {
        return fail(-3, refusal)
    }
    out.pointee = HandleRegistry.register(Engine(avatar: avatar))
    ThreadError.clear()
    return 0
}

@_cdecl("be_essence2_is_ready")
public func be_essence2_is_ready(_ h: OpaquePointer?) -> Int32 {
    guard let engine = HandleRegistry.engine(h) else { return 0 }
    return engine.isReady ? 1 : 0
}

@_cdecl("be_essence2_destroy")
public func be_essence2_destroy(_ h: OpaquePointer?) -> Int32 {
    guard h != nil else { return 0 }
    guard let engine = HandleRegistry.unregister(h) else { return fail(-1, "unknown or destroyed handle") }
    engine.stop()
    return 0
}

@_cdecl("be_essence2_quiesce_all")
public func be_essence2_quiesce_all(_ timeoutMs: Int32) -> Int32 {
    let engines = HandleRegistry.all()
    var stopped: Int32 = 0
    for engine in engines where engine.stop() { stopped += 1 }
    let deadline = SystemClock().nanoseconds() + Int64(max(timeoutMs, 0)) * 1_000_000
    for engine in engines { _ = engine.waitUntilStopped(deadline: deadline) }
    return stopped
}

@_cdecl("be_essence2_version")
public func be_essence2_version() -> UnsafePointer<CChar> {
    staticCString(LibraryVersion.string)
}

@_cdecl("be_essence2_strerror")
public func be_essence2_strerror(_ code: Int32) -> UnsafePointer<CChar> {
    switch code {
    case 0: return staticCString("success")
    case -1: return staticCString("bad argument (NULL pointer, unknown handle, short buffer or value out of range)")
    case -2: return staticCString("avatar file invalid, audio ring full, or unknown mode or model")
    case -3: return staticCString("session refused by the credential check")
    default: return staticCString("unknown error")
    }
}

/// Records the reason of a failure for `be_essence2_last_error` and returns its code.
func fail(_ code: Int32, _ reason: String) -> Int32 {
    ThreadError.set(reason)
    return code
}

/// A static string literal as a C string (literals are NUL-terminated and live as long as the library).
func staticCString(_ text: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
}
