import Essence2Core

// Display settings, pacing and counters.

@_cdecl("be_essence2_set_mode")
public func be_essence2_set_mode(_ h: OpaquePointer?, _ mode: Int32) -> Int32 {
    guard let engine = HandleRegistry.engine(h) else { return fail(-1, "unknown or destroyed handle") }
    guard let mode = DisplayMode(rawValue: mode) else { return fail(-2, "unknown mode \(mode)") }
    engine.setMode(mode)
    return 0
}

@_cdecl("be_essence2_set_pacing")
public func be_essence2_set_pacing(_ h: OpaquePointer?, _ mode: Int32) -> Int32 {
    guard let engine = HandleRegistry.engine(h) else { return fail(-1, "unknown or destroyed handle") }
    guard let pacing = Pacing(rawValue: mode) else { return fail(-2, "unknown pacing \(mode)") }
    engine.setPacing(pacing)
    return 0
}

@_cdecl("be_essence2_set_lipsync")
public func be_essence2_set_lipsync(_ h: OpaquePointer?, _ model: Int32) -> Int32 {
    guard let engine = HandleRegistry.engine(h) else { return fail(-1, "unknown or destroyed handle") }
    guard let model = LipSyncModel(rawValue: model) else { return fail(-2, "unknown lip-sync model \(model)") }
    engine.setLipSyncModel(model)
    return 0
}

@_cdecl("be_essence2_set_seed")
public func be_essence2_set_seed(_ h: OpaquePointer?, _ seed: UInt64) -> Int32 {
    guard let engine = HandleRegistry.engine(h) else { return fail(-1, "unknown or destroyed handle") }
    engine.setSeed(seed)
    return 0
}

@_cdecl("be_essence2_render_status")
public func be_essence2_render_status(_ h: OpaquePointer?, _ reason: UnsafeMutablePointer<CChar>?, _ len: Int32,
                                      _ failures: UnsafeMutablePointer<Int64>?) -> Int32 {
    guard let engine = HandleRegistry.engine(h) else { return fail(-1, "unknown or destroyed handle") }
    guard len >= 0, reason != nil || len == 0 else { return fail(-1, "reason is NULL with len \(len)") }
    let health = engine.renderHealth
    _ = copyCString(health.reason, to: reason, capacity: len)
    failures?.pointee = health.failures
    return health.failures == 0 ? 0 : -1
}

@_cdecl("be_essence2_pulled_speech_frames")
public func be_essence2_pulled_speech_frames(_ h: OpaquePointer?) -> Int64 {
    HandleRegistry.engine(h)?.pulledSpeechFrames ?? Int64(fail(-1, "unknown or destroyed handle"))
}

@_cdecl("be_essence2_set_playout_anchor")
public func be_essence2_set_playout_anchor(_ h: OpaquePointer?, _ on: Int32) -> Int32 {
    guard let engine = HandleRegistry.engine(h) else { return fail(-1, "unknown or destroyed handle") }
    engine.setPlayoutAnchor(on != 0)
    return 0
}

@_cdecl("be_essence2_set_playout_position")
public func be_essence2_set_playout_position(_ h: OpaquePointer?, _ samplesPlayed: Int64) -> Int32 {
    guard let engine = HandleRegistry.engine(h) else { return fail(-1, "unknown or destroyed handle") }
    guard samplesPlayed >= 0 else { return fail(-1, "samples_played \(samplesPlayed) is negative") }
    engine.setPlayoutPosition(samplesPlayed)
    return 0
}

@_cdecl("be_essence2_last_frame_index")
public func be_essence2_last_frame_index(_ h: OpaquePointer?) -> Int64 {
    guard let engine = HandleRegistry.engine(h) else { return Int64(fail(-1, "unknown or destroyed handle")) }
    return Int64(engine.lastFrameIndex)
}

@_cdecl("be_essence2_skipped_frames")
public func be_essence2_skipped_frames(_ h: OpaquePointer?) -> Int64 {
    HandleRegistry.engine(h)?.skippedFrames ?? Int64(fail(-1, "unknown or destroyed handle"))
}

@_cdecl("be_essence2_reanchor_slots")
public func be_essence2_reanchor_slots(_ h: OpaquePointer?) -> Int64 {
    HandleRegistry.engine(h)?.reanchorSlots ?? Int64(fail(-1, "unknown or destroyed handle"))
}

@_cdecl("be_essence2_anchor_slots")
public func be_essence2_anchor_slots(_ h: OpaquePointer?) -> Int64 {
    HandleRegistry.engine(h)?.anchorSlots ?? Int64(fail(-1, "unknown or destroyed handle"))
}
