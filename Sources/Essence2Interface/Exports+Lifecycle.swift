import Essence2Runtime
import Essence2Service

#if canImport(Glibc)
import Glibc
#endif

// Credentials, lifecycle and library information. Every thunk checks its arguments, maps errors to the
// stable codes of include/essence2.h, sets or clears the calling thread's reason, and calls the runtime;
// nothing here traps on caller input.

@_cdecl("be_essence2_set_api_secret")
public func be_essence2_set_api_secret(_ secret: UnsafePointer<CChar>?) -> Int32 {
    Credentials.setSecret(secret.map { String(cString: $0) })
    return succeed(ResultCode.ok)
}

@_cdecl("be_essence2_set_service_url")
public func be_essence2_set_service_url(_ url: UnsafePointer<CChar>?) -> Int32 {
    if let problem = Credentials.setServiceURL(url.map { String(cString: $0) }) {
        return fail(ResultCode.argument, problem)
    }
    return succeed(ResultCode.ok)
}

@_cdecl("be_essence2_last_refusal")
public func be_essence2_last_refusal(_ out: UnsafeMutablePointer<CChar>?, _ capacity: Int32) -> Int32 {
    guard capacity >= 0, out != nil || capacity == 0 else {
        return fail(ResultCode.argument, "last_refusal: out is NULL with capacity \(capacity), or capacity is negative")
    }
    return succeed(copyCString(Credentials.lastRefusal, to: out, capacity: capacity))
}

@_cdecl("be_essence2_last_error")
public func be_essence2_last_error(_ out: UnsafeMutablePointer<CChar>?, _ capacity: Int32) -> Int32 {
    // Reading the reason never changes it (nor does a bad buffer here, which would overwrite what it reports).
    copyCString(ThreadError.current, to: out, capacity: capacity)
}

@_cdecl("be_essence2_create")
public func be_essence2_create(
    _ path: UnsafePointer<CChar>?, _ motionDir: UnsafePointer<CChar>?, _ chunk: Int32,
    _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    out?.pointee = nil
    guard let path, let out else { return fail(ResultCode.argument, "imx_path and out must not be NULL") }
    guard (0...65_536).contains(chunk) else {
        return fail(ResultCode.argument, "chunk \(chunk) is out of range 0...65536 (it is reserved: pass 0)")
    }
    if let motionDir {
        var info = stat()
        guard stat(motionDir, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            return fail(ResultCode.argument, "motion_dir '\(String(cString: motionDir))' is not a directory "
                + "(pass NULL: this version needs no runtime files)")
        }
    }
    let opened: (AvatarOpening, MeteredSession?)
    do {
        opened = try AvatarOpening.open(path: String(cString: path), for: .essence2)
    } catch {
        return fail(error.resultCode, error.reason)
    }
    out.pointee = HandleRegistry.register(Engine(avatar: opened.0.avatar, session: opened.1))
    return succeed(ResultCode.ok)
}

@_cdecl("be_essence2_avatar_kind")
public func be_essence2_avatar_kind(_ path: UnsafePointer<CChar>?) -> Int32 {
    guard let path else { return fail(ResultCode.argument, "imx_path must not be NULL") }
    do {
        let avatar = try AvatarFile.read(path: String(cString: path))
        return succeed(avatar.kind == .photoreal ? 0 : 1)
    } catch {
        return fail(ResultCode.avatar, error.description)
    }
}

@_cdecl("be_essence2_is_ready")
public func be_essence2_is_ready(_ h: OpaquePointer?) -> Int32 {
    guard let engine = HandleRegistry.engine(h) else { return fail(0, unknownHandle) }
    return succeed(engine.isReady ? 1 : 0)
}

@_cdecl("be_essence2_destroy")
public func be_essence2_destroy(_ h: OpaquePointer?) -> Int32 {
    guard h != nil else { return succeed(ResultCode.ok) }
    do {
        guard let engine = HandleRegistry.unregister(h) else { return fail(ResultCode.argument, unknownHandle) }
        engine.stop()
        engine.closeFrameDescriptor()
        // A metered session's final report, waited for at most 2 s (at once when unmetered).
        engine.endSession(waitUntil: SystemClock().nanoseconds() + finalReportWait)
    }
    // The engine is released (its render thread gives back what it held when it ends).
    ProcessMemory.returnFreed()
    return succeed(ResultCode.ok)
}

@_cdecl("be_essence2_quiesce_all")
public func be_essence2_quiesce_all(_ timeoutMs: Int32) -> Int32 {
    let engines = HandleRegistry.all()
    var stopped: Int32 = 0
    for engine in engines where engine.stop() { stopped += 1 }
    let deadline = SystemClock().nanoseconds() + Int64(max(timeoutMs, 0)) * 1_000_000
    // Metered sessions send their final reports meanwhile, all at once, within the same bound.
    for engine in engines { engine.endSession(waitUntil: nil) }
    for engine in engines { _ = engine.waitUntilStopped(deadline: deadline) }
    for engine in engines { engine.endSession(waitUntil: deadline) }
    return succeed(stopped)
}

@_cdecl("be_essence2_version")
public func be_essence2_version() -> UnsafePointer<CChar> {
    staticCString(LibraryVersion.string)
}

@_cdecl("be_essence2_version_number")
public func be_essence2_version_number() -> Int32 {
    Int32(LibraryVersion.number)
}

@_cdecl("be_essence2_strerror")
public func be_essence2_strerror(_ code: Int32) -> UnsafePointer<CChar> {
    switch code {
    case ResultCode.ok: return staticCString("success")
    case ResultCode.argument:
        return staticCString("bad argument (NULL pointer, unknown handle, short buffer or value out of range); for be_essence2_render_status: rendering failed")
    case ResultCode.avatar:
        return staticCString("avatar file missing or invalid (create), audio ring full or engine stopped (push_audio), or unknown mode, pacing or model (set_*)")
    case ResultCode.refused:
        return staticCString("session refused by the credential check or the metering service (be_essence2_last_refusal gives the reason)")
    case ResultCode.statusArgument:
        return staticCString("bad argument to be_essence2_render_status (unknown handle or reason buffer)")
    default: return staticCString("unknown error")
    }
}

/// How long destroy waits for a metered session's final report: 2 s, in ns.
let finalReportWait: Int64 = 2_000_000_000

/// A static string literal as a C string (literals are NUL-terminated and live as long as the library).
func staticCString(_ text: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
}
