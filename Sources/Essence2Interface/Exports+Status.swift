import Essence2Runtime

// Display settings, pacing and counters.

@_cdecl("be_essence2_set_mode")
public func be_essence2_set_mode(_ h: OpaquePointer?, _ mode: Int32) -> Int32 {
    withEngine(h, failing: ResultCode.argument) { engine in
        guard let mode = DisplayMode(rawValue: mode) else {
            return fail(ResultCode.mode, "unknown mode \(mode) (use BE_ESSENCE2_MODE_FULL or BE_ESSENCE2_MODE_HEAD)")
        }
        engine.setMode(mode)
        return succeed(ResultCode.ok)
    }
}

@_cdecl("be_essence2_set_pacing")
public func be_essence2_set_pacing(_ h: OpaquePointer?, _ mode: Int32) -> Int32 {
    withEngine(h, failing: ResultCode.argument) { engine in
        guard let pacing = Pacing(rawValue: mode) else {
            return fail(ResultCode.mode, "unknown pacing \(mode) (use BE_ESSENCE2_PACING_REALTIME, BE_ESSENCE2_PACING_UNPACED or BE_ESSENCE2_PACING_AUDIO_CLOCK)")
        }
        engine.setPacing(pacing)
        return succeed(ResultCode.ok)
    }
}

@_cdecl("be_essence2_set_lipsync")
public func be_essence2_set_lipsync(_ h: OpaquePointer?, _ model: Int32) -> Int32 {
    withEngine(h, failing: ResultCode.argument) { engine in
        guard let model = LipSyncModel(rawValue: model) else {
            return fail(ResultCode.mode, "unknown lip-sync model \(model) (use BE_ESSENCE2_LIPSYNC_LEARNED or BE_ESSENCE2_LIPSYNC_V1)")
        }
        engine.setLipSyncModel(model)
        return succeed(ResultCode.ok)
    }
}

@_cdecl("be_essence2_set_seed")
public func be_essence2_set_seed(_ h: OpaquePointer?, _ seed: UInt64) -> Int32 {
    withEngine(h, failing: ResultCode.argument) { engine in
        engine.setSeed(seed)
        return succeed(ResultCode.ok)
    }
}

@_cdecl("be_essence2_render_status")
public func be_essence2_render_status(_ h: OpaquePointer?, _ reason: UnsafeMutablePointer<CChar>?, _ len: Int32,
                                      _ failures: UnsafeMutablePointer<Int64>?) -> Int32 {
    withEngine(h, failing: ResultCode.statusArgument) { engine in
        guard len >= 0, reason != nil || len == 0 else {
            return fail(ResultCode.statusArgument, "reason is NULL with len \(len), or len is negative")
        }
        let health = engine.renderHealth
        _ = copyCString(health.reason, to: reason, capacity: len)
        failures?.pointee = health.failures
        guard health.failures == 0 else {
            return fail(ResultCode.render, "rendering failed \(health.failures) time(s); latest: \(health.reason)")
        }
        return succeed(ResultCode.ok)
    }
}

@_cdecl("be_essence2_pulled_speech_frames")
public func be_essence2_pulled_speech_frames(_ h: OpaquePointer?) -> Int64 {
    withEngine(h, failing: Int64(ResultCode.argument)) { engine in
        return succeed(engine.pulledSpeechFrames)
    }
}

@_cdecl("be_essence2_set_playout_anchor")
public func be_essence2_set_playout_anchor(_ h: OpaquePointer?, _ on: Int32) -> Int32 {
    withEngine(h, failing: ResultCode.argument) { engine in
        engine.setPlayoutAnchor(on != 0)
        return succeed(ResultCode.ok)
    }
}

@_cdecl("be_essence2_set_playout_position")
public func be_essence2_set_playout_position(_ h: OpaquePointer?, _ samplesPlayed: Int64) -> Int32 {
    withEngine(h, failing: ResultCode.argument) { engine in
        guard samplesPlayed >= 0 else { return fail(ResultCode.argument, "samples_played \(samplesPlayed) is negative") }
        engine.setPlayoutPosition(samplesPlayed)
        return succeed(ResultCode.ok)
    }
}

@_cdecl("be_essence2_last_frame_index")
public func be_essence2_last_frame_index(_ h: OpaquePointer?) -> Int64 {
    withEngine(h, failing: Int64(ResultCode.argument)) { engine in
        return succeed(Int64(engine.lastFrameIndex))
    }
}

@_cdecl("be_essence2_skipped_frames")
public func be_essence2_skipped_frames(_ h: OpaquePointer?) -> Int64 {
    withEngine(h, failing: Int64(ResultCode.argument)) { engine in
        return succeed(engine.skippedFrames)
    }
}

@_cdecl("be_essence2_reanchor_slots")
public func be_essence2_reanchor_slots(_ h: OpaquePointer?) -> Int64 {
    withEngine(h, failing: Int64(ResultCode.argument)) { engine in
        return succeed(engine.reanchorSlots)
    }
}

@_cdecl("be_essence2_anchor_slots")
public func be_essence2_anchor_slots(_ h: OpaquePointer?) -> Int64 {
    withEngine(h, failing: Int64(ResultCode.argument)) { engine in
        return succeed(engine.anchorSlots)
    }
}
