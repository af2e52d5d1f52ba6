import Essence2Core

// Audio in, frames out.

@_cdecl("be_essence2_push_audio")
public func be_essence2_push_audio(_ h: OpaquePointer?, _ samples: UnsafePointer<Int16>?, _ count: Int32) -> Int32 {
    guard let engine = HandleRegistry.engine(h) else { return fail(-1, "unknown or destroyed handle") }
    guard count >= 0, count <= 256_000 else { return fail(-1, "count \(count) is outside 0...256000 samples") }
    if count == 0 { return 0 }
    guard let samples else { return fail(-1, "samples is NULL") }
    return engine.pushAudio(UnsafeBufferPointer(start: samples, count: Int(count))) ? 0 : -2
}

@_cdecl("be_essence2_end_utterance")
public func be_essence2_end_utterance(_ h: OpaquePointer?) -> Int32 {
    guard let engine = HandleRegistry.engine(h) else { return fail(-1, "unknown or destroyed handle") }
    engine.endUtterance()
    return 0
}

@_cdecl("be_essence2_frames_available")
public func be_essence2_frames_available(_ h: OpaquePointer?) -> Int32 {
    guard let engine = HandleRegistry.engine(h) else { return fail(-1, "unknown or destroyed handle") }
    return Int32(clamping: engine.framesAvailable())
}

@_cdecl("be_essence2_pull_frame")
public func be_essence2_pull_frame(_ h: OpaquePointer?, _ out: UnsafeMutablePointer<UInt8>?, _ capacity: Int32) -> Int32 {
    pull(h, out, capacity, idleOnly: false)
}

@_cdecl("be_essence2_idle_frame")
public func be_essence2_idle_frame(_ h: OpaquePointer?, _ out: UnsafeMutablePointer<UInt8>?, _ capacity: Int32) -> Int32 {
    pull(h, out, capacity, idleOnly: true)
}

private func pull(_ h: OpaquePointer?, _ out: UnsafeMutablePointer<UInt8>?, _ capacity: Int32, idleOnly: Bool) -> Int32 {
    guard let engine = HandleRegistry.engine(h) else { return fail(-1, "unknown or destroyed handle") }
    guard let out else { return fail(-1, "out is NULL") }
    guard capacity > 0 else { return fail(-1, "capacity \(capacity) is smaller than a frame") }
    let buffer = UnsafeMutableRawBufferPointer(start: out, count: Int(capacity))
    switch idleOnly ? engine.pullIdle(into: buffer) : engine.pull(into: buffer) {
    case .frame(_, let bytes):
        return Int32(clamping: bytes)
    case .notDue:
        return 0
    case .bufferTooSmall:
        return fail(-1, "capacity \(capacity) is smaller than a frame of \(engine.frameBytes) bytes")
    }
}

@_cdecl("be_essence2_get_info")
public func be_essence2_get_info(_ h: OpaquePointer?, _ width: UnsafeMutablePointer<Int32>?,
                                 _ height: UnsafeMutablePointer<Int32>?) -> Int32 {
    guard let engine = HandleRegistry.engine(h) else { return fail(-1, "unknown or destroyed handle") }
    guard let width, let height else { return fail(-1, "width and height must not be NULL") }
    let size = engine.frameSize
    width.pointee = Int32(clamping: size.width)
    height.pointee = Int32(clamping: size.height)
    return 0
}

@_cdecl("be_essence2_reset")
public func be_essence2_reset(_ h: OpaquePointer?) -> Int32 {
    guard let engine = HandleRegistry.engine(h) else { return fail(-1, "unknown or destroyed handle") }
    engine.reset()
    return 0
}

@_cdecl("be_essence2_last_frame_kind")
public func be_essence2_last_frame_kind(_ h: OpaquePointer?) -> Int32 {
    guard let engine = HandleRegistry.engine(h) else { return fail(-1, "unknown or destroyed handle") }
    return engine.lastFrameKind?.rawValue ?? -1
}
