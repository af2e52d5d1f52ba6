import Essence2Runtime
import Essence2Service

#if canImport(Glibc)
import Glibc
#endif

// The be_expression2_* functions of include/expression2.h: character avatars on the same engine machinery, at
// Expression 2's cadence (20 frames a second, 800 samples a frame). Each checks that its handle is a live
// Expression 2 engine, then shares the be_essence2_* thunk's checks, codes and reason.

/// Runs `body` when `h` is a live Expression 2 handle; else records why and returns `code`.
private func expression<Code: BinaryInteger>(_ h: OpaquePointer?, failing code: Code, _ body: () -> Code) -> Code {
    guard let engine = HandleRegistry.engine(h) else { return fail(code, unknownExpressionHandle) }
    guard engine.cadence == .expression2 else {
        return fail(code, "an Essence 2 handle given to a be_expression2_* function (use the be_essence2_* calls for it)")
    }
    return body()
}

@_cdecl("be_expression2_create")
public func be_expression2_create(
    _ path: UnsafePointer<CChar>?, _ enginePath: UnsafePointer<CChar>?, _ stagingDir: UnsafePointer<CChar>?,
    _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    out?.pointee = nil
    guard let path, let out else { return fail(ResultCode.argument, "imx_path and out must not be NULL") }
    let opening: AvatarOpening
    do {
        opening = try AvatarOpening.read(path: String(cString: path), for: .expression2)
    } catch {
        return fail(error.resultCode, error.reason)
    }
    var weights = LipSyncWeights.shipped
    if let enginePath {
        let container = String(cString: enginePath)
        let staging = stagingDir.map { String(cString: $0) }
        if let staging, !(BinaryFile.makeDirectories(staging) && access(staging, W_OK) == 0) {
            return fail(ResultCode.argument, "staging_dir '\(staging)' is not a writable directory")
        }
        switch EngineStaging.weights(container: container, staging: staging) {
        case .success(let staged): weights = staged
        case .failure(let error): return fail(ResultCode.avatar, "engine container: \(error.description)")
        }
    }
    let session: MeteredSession?
    do {
        session = try opening.admit()
    } catch {
        return fail(error.resultCode, error.reason)
    }
    out.pointee = HandleRegistry.register(Engine(avatar: opening.avatar, session: session, weights: weights))
    return succeed(ResultCode.ok)
}

@_cdecl("be_expression2_destroy")
public func be_expression2_destroy(_ h: OpaquePointer?) -> Int32 {
    guard h != nil else { return succeed(ResultCode.ok) }
    return expression(h, failing: ResultCode.argument) { be_essence2_destroy(h) }
}

@_cdecl("be_expression2_is_ready")
public func be_expression2_is_ready(_ h: OpaquePointer?) -> Int32 {
    expression(h, failing: 0) { be_essence2_is_ready(h) }
}

@_cdecl("be_expression2_push_audio")
public func be_expression2_push_audio(_ h: OpaquePointer?, _ samples: UnsafePointer<Int16>?, _ count: Int32) -> Int32 {
    expression(h, failing: ResultCode.argument) { be_essence2_push_audio(h, samples, count) }
}

@_cdecl("be_expression2_feed_audio")
public func be_expression2_feed_audio(_ h: OpaquePointer?, _ samples: UnsafePointer<Int16>?, _ count: Int32,
                                      _ rate: Int32) -> Int32 {
    expression(h, failing: ResultCode.argument) { be_essence2_feed_audio(h, samples, count, rate) }
}

@_cdecl("be_expression2_feed_float")
public func be_expression2_feed_float(_ h: OpaquePointer?, _ samples: UnsafePointer<Float>?, _ count: Int32,
                                      _ rate: Int32) -> Int32 {
    expression(h, failing: ResultCode.argument) { be_essence2_feed_float(h, samples, count, rate) }
}

@_cdecl("be_expression2_pending_samples")
public func be_expression2_pending_samples(_ h: OpaquePointer?) -> Int64 {
    expression(h, failing: Int64(ResultCode.argument)) { be_essence2_pending_samples(h) }
}

@_cdecl("be_expression2_end_utterance")
public func be_expression2_end_utterance(_ h: OpaquePointer?) -> Int32 {
    expression(h, failing: ResultCode.argument) { be_essence2_end_utterance(h) }
}

@_cdecl("be_expression2_reset")
public func be_expression2_reset(_ h: OpaquePointer?) -> Int32 {
    expression(h, failing: ResultCode.argument) { be_essence2_reset(h) }
}

@_cdecl("be_expression2_frames_available")
public func be_expression2_frames_available(_ h: OpaquePointer?) -> Int32 {
    expression(h, failing: ResultCode.argument) { be_essence2_frames_available(h) }
}

@_cdecl("be_expression2_take_frame")
public func be_expression2_take_frame(_ h: OpaquePointer?, _ pixels: UnsafeMutablePointer<UInt8>?, _ capacity: Int32,
                                      _ info: UnsafeMutableRawPointer?) -> Int32 {
    expression(h, failing: ResultCode.argument) {
        guard let info else { return fail(ResultCode.argument, "info is NULL (pass a be_expression2_frame_info)") }
        let size = info.loadUnaligned(as: UInt32.self)
        guard size >= UInt32(FrameInfoLayout.expressionSize) else {
            return fail(ResultCode.argument, "info->size is \(size), smaller than the \(FrameInfoLayout.expressionSize) "
                + "bytes of be_expression2_frame_info: set it to sizeof(be_expression2_frame_info) before the call")
        }
        return take(h, pixels, capacity, idleOnly: false, what: "pixels") {
            FrameInfoLayout.write($0, into: info, audioCapacity: FrameInfoLayout.expressionAudioCapacity)
        }
    }
}

@_cdecl("be_expression2_pull_frame")
public func be_expression2_pull_frame(_ h: OpaquePointer?, _ out: UnsafeMutablePointer<UInt8>?, _ capacity: Int32) -> Int32 {
    expression(h, failing: ResultCode.argument) { be_essence2_pull_frame(h, out, capacity) }
}

@_cdecl("be_expression2_idle_frame")
public func be_expression2_idle_frame(_ h: OpaquePointer?, _ out: UnsafeMutablePointer<UInt8>?, _ capacity: Int32) -> Int32 {
    expression(h, failing: ResultCode.argument) { be_essence2_idle_frame(h, out, capacity) }
}

@_cdecl("be_expression2_frame_fd")
public func be_expression2_frame_fd(_ h: OpaquePointer?) -> Int32 {
    expression(h, failing: ResultCode.argument) { be_essence2_frame_fd(h) }
}

@_cdecl("be_expression2_get_info")
public func be_expression2_get_info(_ h: OpaquePointer?, _ width: UnsafeMutablePointer<Int32>?,
                                    _ height: UnsafeMutablePointer<Int32>?) -> Int32 {
    expression(h, failing: ResultCode.argument) { be_essence2_get_info(h, width, height) }
}

@_cdecl("be_expression2_set_mode")
public func be_expression2_set_mode(_ h: OpaquePointer?, _ mode: Int32) -> Int32 {
    expression(h, failing: ResultCode.argument) { be_essence2_set_mode(h, mode) }
}

@_cdecl("be_expression2_set_pacing")
public func be_expression2_set_pacing(_ h: OpaquePointer?, _ mode: Int32) -> Int32 {
    expression(h, failing: ResultCode.argument) { be_essence2_set_pacing(h, mode) }
}

@_cdecl("be_expression2_set_playout_position")
public func be_expression2_set_playout_position(_ h: OpaquePointer?, _ samples: Int64) -> Int32 {
    expression(h, failing: ResultCode.argument) { be_essence2_set_playout_position(h, samples) }
}

@_cdecl("be_expression2_set_seed")
public func be_expression2_set_seed(_ h: OpaquePointer?, _ seed: UInt64) -> Int32 {
    expression(h, failing: ResultCode.argument) { be_essence2_set_seed(h, seed) }
}

@_cdecl("be_expression2_skipped_frames")
public func be_expression2_skipped_frames(_ h: OpaquePointer?) -> Int64 {
    expression(h, failing: Int64(ResultCode.argument)) { be_essence2_skipped_frames(h) }
}

@_cdecl("be_expression2_reply_counts")
public func be_expression2_reply_counts(_ h: OpaquePointer?, _ started: UnsafeMutablePointer<Int64>?,
                                        _ ended: UnsafeMutablePointer<Int64>?) -> Int32 {
    expression(h, failing: ResultCode.argument) { be_essence2_reply_counts(h, started, ended) }
}

@_cdecl("be_expression2_last_error")
public func be_expression2_last_error(_ out: UnsafeMutablePointer<CChar>?, _ capacity: Int32) -> Int32 {
    be_essence2_last_error(out, capacity)
}
