import Essence2Runtime

// Audio in, frames out.

@_cdecl("be_essence2_push_audio")
public func be_essence2_push_audio(_ h: OpaquePointer?, _ samples: UnsafePointer<Int16>?, _ count: Int32) -> Int32 {
    withEngine(h, failing: ResultCode.argument) { engine in
        guard count >= 0, count <= Int32(StreamFormat.ringSamples) else {
            return fail(ResultCode.argument, "count \(count) is outside 0...\(StreamFormat.ringSamples) samples "
                + "(push long audio in pieces)")
        }
        if count == 0 { return succeed(ResultCode.ok) }
        guard let samples else { return fail(ResultCode.argument, "samples is NULL with count \(count)") }
        switch engine.push(UnsafeBufferPointer(start: samples, count: Int(count))) {
        case .queued:
            return succeed(ResultCode.ok)
        case .ringFull(let buffered):
            return fail(ResultCode.full, "the audio ring is full: it holds \(buffered) of \(StreamFormat.ringSamples) "
                + "samples and \(count) more do not fit; nothing was queued: pull frames, then push again")
        case .stopped:
            return fail(ResultCode.full, stoppedNothingQueued)
        }
    }
}

/// The reason of a push or feed into an engine that `be_essence2_quiesce_all` stopped.
private let stoppedNothingQueued = "the engine was stopped by be_essence2_quiesce_all; nothing was queued: destroy it and "
    + "create a new one"

@_cdecl("be_essence2_feed_audio")
public func be_essence2_feed_audio(_ h: OpaquePointer?, _ samples: UnsafePointer<Int16>?, _ count: Int32,
                                   _ sampleRate: Int32) -> Int32 {
    feed(h, samples, count, sampleRate) { engine, buffer in engine.feed(buffer, sampleRate: Int(sampleRate)) }
}

@_cdecl("be_essence2_feed_float")
public func be_essence2_feed_float(_ h: OpaquePointer?, _ samples: UnsafePointer<Float>?, _ count: Int32,
                                   _ sampleRate: Int32) -> Int32 {
    feed(h, samples, count, sampleRate) { engine, buffer in engine.feed(buffer, sampleRate: Int(sampleRate)) }
}

@_cdecl("be_essence2_pending_samples")
public func be_essence2_pending_samples(_ h: OpaquePointer?) -> Int64 {
    guard let engine = HandleRegistry.engine(h) else { return Int64(fail(ResultCode.argument, unknownHandle)) }
    return succeed(Int64(engine.pendingSamples))
}

private func feed<Sample>(_ h: OpaquePointer?, _ samples: UnsafePointer<Sample>?, _ count: Int32, _ sampleRate: Int32,
                          _ body: (Engine, UnsafeBufferPointer<Sample>) -> FeedOutcome) -> Int32 {
    withEngine(h, failing: ResultCode.argument) { engine in
        guard count >= 0 else { return fail(ResultCode.argument, "count \(count) is negative") }
        guard StreamResampler.rates.contains(Int(sampleRate)) else {
            return fail(ResultCode.argument, "sample_rate \(sampleRate) is outside \(StreamResampler.rates.lowerBound)..."
                + "\(StreamResampler.rates.upperBound) Hz")
        }
        if count == 0 { return succeed(ResultCode.ok) }
        guard let samples else { return fail(ResultCode.argument, "samples is NULL with count \(count)") }
        switch body(engine, UnsafeBufferPointer(start: samples, count: Int(count))) {
        case .queued:
            return succeed(ResultCode.ok)
        case .unsupportedRate(let rate):
            return fail(ResultCode.argument, "sample_rate \(rate) is not supported")
        case .overLimit(let pending):
            return fail(ResultCode.full, "\(pending) samples already wait beyond the ring and \(count) more would pass the "
                + "limit of \(Engine.feedLimit) (10 minutes): take frames, then feed again; nothing was queued")
        case .stopped:
            return fail(ResultCode.full, stoppedNothingQueued)
        }
    }
}

@_cdecl("be_essence2_end_utterance")
public func be_essence2_end_utterance(_ h: OpaquePointer?) -> Int32 {
    withEngine(h, failing: ResultCode.argument) { engine in
        engine.endUtterance()
        return succeed(ResultCode.ok)
    }
}

@_cdecl("be_essence2_frames_available")
public func be_essence2_frames_available(_ h: OpaquePointer?) -> Int32 {
    withEngine(h, failing: ResultCode.argument) { engine in
        return succeed(Int32(clamping: engine.framesAvailable()))
    }
}

@_cdecl("be_essence2_pull_frame")
public func be_essence2_pull_frame(_ h: OpaquePointer?, _ out: UnsafeMutablePointer<UInt8>?, _ capacity: Int32) -> Int32 {
    pull(h, out, capacity, idleOnly: false)
}

@_cdecl("be_essence2_take_frame")
public func be_essence2_take_frame(_ h: OpaquePointer?, _ pixels: UnsafeMutablePointer<UInt8>?, _ capacity: Int32,
                                   _ info: UnsafeMutableRawPointer?) -> Int32 {
    guard let info else {
        guard HandleRegistry.engine(h) != nil else { return fail(ResultCode.argument, unknownHandle) }
        return fail(ResultCode.argument, "info is NULL (pass a be_essence2_frame_info)")
    }
    let size = info.loadUnaligned(as: UInt32.self)
    guard size >= UInt32(FrameInfoLayout.size) else {
        guard HandleRegistry.engine(h) != nil else { return fail(ResultCode.argument, unknownHandle) }
        return fail(ResultCode.argument, "info->size is \(size), smaller than the \(FrameInfoLayout.size) bytes of "
            + "be_essence2_frame_info (1.3): set it to sizeof(be_essence2_frame_info) before the call")
    }
    if let engine = HandleRegistry.engine(h), engine.cadence != .essence2 {
        return fail(ResultCode.argument, "an Expression 2 handle: take its frames with be_expression2_take_frame "
            + "(be_expression2_frame_info holds a frame's 800 samples)")
    }
    return take(h, pixels, capacity, idleOnly: false, what: "pixels") { FrameInfoLayout.write($0, into: info) }
}

@_cdecl("be_essence2_idle_frame")
public func be_essence2_idle_frame(_ h: OpaquePointer?, _ out: UnsafeMutablePointer<UInt8>?, _ capacity: Int32) -> Int32 {
    pull(h, out, capacity, idleOnly: true)
}

private func pull(_ h: OpaquePointer?, _ out: UnsafeMutablePointer<UInt8>?, _ capacity: Int32, idleOnly: Bool) -> Int32 {
    take(h, out, capacity, idleOnly: idleOnly, what: "out") { _ in }
}

/// The one way a frame leaves through the C interface (pull_frame, idle_frame, take_frame): the checks, the
/// engine's take, and the return code; `record` sees the frame taken before the thunk returns.
func take(_ h: OpaquePointer?, _ out: UnsafeMutablePointer<UInt8>?, _ capacity: Int32, idleOnly: Bool,
                  what: String, record: (Engine.TakenFrame) -> Void) -> Int32 {
    guard let engine = HandleRegistry.engine(h) else { return fail(ResultCode.argument, unknownHandle) }
    guard let out else { return fail(ResultCode.argument, "\(what) is NULL") }
    guard capacity > 0 else {
        return fail(ResultCode.argument, "capacity \(capacity) is smaller than a frame of \(engine.frameBytes) bytes")
    }
    switch engine.take(into: UnsafeMutableRawBufferPointer(start: out, count: Int(capacity)), idleOnly: idleOnly) {
    case .frame(let frame):
        record(frame)
        return succeed(Int32(clamping: frame.bytes))
    case .notDue:
        return succeed(0)
    case .bufferTooSmall:
        return fail(ResultCode.argument, "capacity \(capacity) is smaller than a frame of \(engine.frameBytes) bytes "
            + "(width * height * 3 of the current mode; be_essence2_get_info gives the size)")
    case .refused(let reason):
        return fail(ResultCode.refused, reason)
    }
}

@_cdecl("be_essence2_get_info")
public func be_essence2_get_info(_ h: OpaquePointer?, _ width: UnsafeMutablePointer<Int32>?,
                                 _ height: UnsafeMutablePointer<Int32>?) -> Int32 {
    withEngine(h, failing: ResultCode.argument) { engine in
        guard let width, let height else { return fail(ResultCode.argument, "width and height must not be NULL") }
        let size = engine.frameSize
        width.pointee = Int32(clamping: size.width)
        height.pointee = Int32(clamping: size.height)
        return succeed(ResultCode.ok)
    }
}

@_cdecl("be_essence2_reset")
public func be_essence2_reset(_ h: OpaquePointer?) -> Int32 {
    withEngine(h, failing: ResultCode.argument) { engine in
        engine.reset()
        return succeed(ResultCode.ok)
    }
}

@_cdecl("be_essence2_last_frame_kind")
public func be_essence2_last_frame_kind(_ h: OpaquePointer?) -> Int32 {
    withEngine(h, failing: ResultCode.argument) { engine in
        return succeed(engine.lastFrameKind?.rawValue ?? -1)
    }
}

@_cdecl("be_essence2_frame_fd")
public func be_essence2_frame_fd(_ h: OpaquePointer?) -> Int32 {
    withEngine(h, failing: ResultCode.argument) { engine in
        switch engine.frameDescriptor() {
        case .success(let descriptor):
            return succeed(descriptor)
        case .failure(let error):
            return fail(ResultCode.argument, error.reason + " (too many open files? raise the limit or close some)")
        }
    }
}

@_cdecl("be_essence2_reply_counts")
public func be_essence2_reply_counts(_ h: OpaquePointer?, _ started: UnsafeMutablePointer<Int64>?,
                                     _ ended: UnsafeMutablePointer<Int64>?) -> Int32 {
    withEngine(h, failing: ResultCode.argument) { engine in
        let counts = engine.replyCounts
        started?.pointee = counts.started
        ended?.pointee = counts.ended
        return succeed(ResultCode.ok)
    }
}
