/// A frame for the render thread to draw.
struct RenderJob {
    let id: UInt64
    let params: FrameParams
    let mode: DisplayMode
    let bytes: Int
    /// A spare buffer of the right size, when the pool has one.
    let buffer: FrameBuffer?
}

extension EngineState {
    /// How many reply frames are planned ahead of the display.
    var replyAhead: Int { 3 }

    /// Plans the frames that can be planned now: reply frames as their audio allows, idle frames to keep the
    /// face alive. Returns true while a reply is open (it may be waiting for audio or for time, so the render
    /// thread should look again soon).
    mutating func plan(now: Int64) -> Bool {
        guard !stopped else { return false }
        endRepliesAfterSilence(now: now)
        while plannedAhead < replyAhead, let r = replies.firstIndex(where: { $0.phase != .done }) {
            // Taken out while planning so its audio is not copied.
            var reply = replies.remove(at: r)
            let planned = planReplyFrame(&reply, now: now)
            replies.insert(reply, at: r)
            if let planned {
                queue.append(planned)
            } else if replies[r].phase != .done {
                break  // waiting for audio
            }
        }
        retireFinishedReplies()
        if wantsIdleFrames {
            while idleQueue.count < EngineState.idleAhead { idleQueue.append(planIdleFrame()) }
        } else if idleWanted, idleQueue.isEmpty {
            idleQueue.append(planIdleFrame())
        }
        idleWanted = false
        return !replies.isEmpty
    }

    /// Reply frames planned ahead of the display, not counting the rest of a ramp that has begun showing
    /// (it gives way as soon as the next reply's first frame is ready).
    var plannedAhead: Int {
        guard let shown = lastShown, shown.kind == .ramp else { return queue.count }
        return queue.count - queue.count { $0.replyID == shown.replyID && $0.kind == .ramp }
    }

    /// Idle frames are shown now or soon: no reply has frames still to plan, or (realtime) the next reply
    /// has not begun showing.
    var wantsIdleFrames: Bool {
        if repliesFullyPlanned { return true }
        guard pacing.isPaced else { return false }
        return !tracker.inReply || !isShownReplyPending
    }

    /// Every frame of every reply is planned (true when there is no reply).
    var repliesFullyPlanned: Bool { replies.allSatisfy { $0.phase == .done } }

    /// The reply whose frames are being shown still has frames to come.
    var isShownReplyPending: Bool {
        guard let shown = lastShown, shown.kind != .idle else { return false }
        return replies.contains { $0.id == shown.replyID }
    }

    /// Idle frames continue the motion after the last frame shown, or after the last reply frame planned
    /// when the replies are fully planned (they then follow it).
    private mutating func planIdleFrame() -> PlannedFrame {
        var after = max(idleQueue.last?.motion ?? -1, lastShown?.motion ?? -1)
        if repliesFullyPlanned, let last = queue.last { after = max(after, last.motion) }
        let motion = after + 1
        return PlannedFrame(
            id: makeID(), kind: .idle, replyID: 0, index: -1,
            params: FrameParams(articulation: .rest, pose: idleMotion.pose(at: cadence.motionFrame(motion))),
            motion: motion, audioEnd: 0)
    }

    private mutating func planReplyFrame(_ reply: inout ReplyInput, now: Int64) -> PlannedFrame? {
        if pacing.isPaced, playoutAnchor, reply.phase == .speech, timeline?.replyID != reply.id {
            skipPlayedAudio(of: &reply, now: now)
        }
        if reply.motionBase == nil {
            let before = queue.last?.motion ?? lastShown?.motion ?? -1
            reply.motionBase = before + 1 - reply.nextIndex
        }
        if reply.gesture == nil {
            var carried = queue.last?.gesture ?? lastShown?.gesture ?? speechMotion
            carried.seed = idleMotion.seed
            reply.gesture = carried
        }
        switch reply.phase {
        case .speech:
            let before = reply.lipSync.bufferedSamples
            var articulation = reply.lipSync.nextFrame(flush: reply.ended)
            if articulation == nil, pacing.isPaced, !reply.ended, isNeededNow(reply, now: now) {
                // The live reply's audio (or its look-ahead) has not arrived by the time the frame is needed:
                // render with what is there, or hold the voice's silence.
                articulation = before >= cadence.samplesPerFrame
                    ? reply.lipSync.nextFrame(flush: true) : reply.lipSync.holdFrame()
            }
            guard let a = articulation else {
                if reply.ended {
                    reply.phase = .ramp(from: reply.lastArticulation, step: 0)
                    return planReplyFrame(&reply, now: now)
                }
                return nil
            }
            reply.consumed += Int64(before - reply.lipSync.bufferedSamples)
            reply.lastArticulation = a
            let gesture = reply.gesture?.advance(reply.lipSync.lastCue) ?? .none
            var frame = makeReplyFrame(&reply, kind: .speech, articulation: a, gesture: gesture)
            frame.audio = reply.lipSync.lastFrameAudio
            return frame
        case .ramp(let from, let step):
            guard step < EngineState.rampFrames else {
                reply.phase = .done
                return nil
            }
            reply.phase = .ramp(from: from, step: step + 1)
            let t = Float(step + 1) / Float(EngineState.rampFrames)
            let eased = t * t * (3 - 2 * t)
            let gesture = reply.gesture?.fade(remaining: EngineState.rampFrames - step) ?? .none
            return makeReplyFrame(&reply, kind: .ramp, articulation: from.mixed(with: .rest, eased), gesture: gesture)
        case .done:
            return nil
        }
    }

    /// Playout anchor, before a reply is shown: its audio that has already played is passed over (counted in
    /// `anchorSlots`), so the reply starts at the live position. At least one frame is kept.
    private mutating func skipPlayedAudio(of reply: inout ReplyInput, now: Int64) {
        let live = liveAudioPosition(of: reply, now: now)
        let frame = cadence.samplesPerFrame
        while reply.consumed + Int64(frame) <= live {
            let buffered = reply.lipSync.bufferedSamples
            let complete = buffered >= frame + reply.lipSync.lookahead || (reply.ended && buffered > frame)
            guard complete, reply.lipSync.nextFrame(flush: reply.ended) != nil else { return }
            reply.consumed += Int64(buffered - reply.lipSync.bufferedSamples)
            reply.nextIndex += 1
            anchorSlots += 1
        }
    }

    /// Samples of the reply the host has played by `now`: its report, or the wall time since the reply's
    /// first audio arrived, whichever is further.
    func liveAudioPosition(of reply: ReplyInput, now: Int64) -> Int64 {
        let elapsed = Int64((Double(now - reply.firstPush) / 1e9 * Double(StreamFormat.sampleRate)).rounded(.down))
        let reported = playoutReplyID == reply.id ? playout.samplesPlayed : 0
        return max(elapsed, reported)
    }

    /// Realtime: the reply's next frame must be rendered now, with or without its audio: it is due within
    /// half a frame period, or it is the first frame and 0.16 s have passed since the reply's audio began.
    private func isNeededNow(_ reply: ReplyInput, now: Int64) -> Bool {
        if let anchored = timeline, anchored.replyID == reply.id {
            return anchored.line.due(reply.nextIndex) <= now + cadence.period / 2
        }
        return reply.nextIndex == 0 && now - reply.firstPush >= cadence.firstFrameDeadline
    }

    private mutating func makeReplyFrame(
        _ reply: inout ReplyInput, kind: FrameKind, articulation: Articulation, gesture: SpeechGesture
    ) -> PlannedFrame {
        let index = reply.nextIndex
        reply.nextIndex += 1
        let motion = (reply.motionBase ?? 0) + index
        if let state = reply.gesture { speechMotion = state }
        return PlannedFrame(
            id: makeID(), kind: kind, replyID: reply.id, index: index,
            params: FrameParams(articulation: articulation, pose: idleMotion.pose(at: cadence.motionFrame(motion)).adding(gesture)),
            motion: motion, audioEnd: reply.consumed, gesture: reply.gesture)
    }

    /// Removes replies whose frames are all planned and handed out (or dropped).
    mutating func retireFinishedReplies() {
        while let first = replies.first, first.phase == .done, !queue.contains(where: { $0.replyID == first.id }) {
            replies.removeFirst()
        }
    }

    /// The next frame to render: reply frames first, in display order, then idle frames.
    mutating func nextJob() -> RenderJob? {
        let bytes = frameBytes
        func job(_ frame: inout PlannedFrame, pool: inout [FrameBuffer]) -> RenderJob {
            frame.inFlight = true
            let spare = pool.popLast()
            return RenderJob(id: frame.id, params: frame.params, mode: mode, bytes: bytes, buffer: spare)
        }
        if let i = queue.firstIndex(where: { !$0.isRendered && !$0.inFlight }) {
            return job(&queue[i], pool: &pool)
        }
        if let i = idleQueue.firstIndex(where: { !$0.isRendered && !$0.inFlight }) {
            return job(&idleQueue[i], pool: &pool)
        }
        return nil
    }

    /// Attaches a rendered buffer to its frame, if the frame is still wanted in this mode.
    mutating func finish(id: UInt64, buffer: FrameBuffer) {
        guard buffer.mode == mode, !stopped else { return }
        if let i = queue.firstIndex(where: { $0.id == id }) {
            queue[i].buffer = buffer
            queue[i].inFlight = false
        } else if let i = idleQueue.firstIndex(where: { $0.id == id }) {
            idleQueue[i].buffer = buffer
            idleQueue[i].inFlight = false
        } else {
            recycle(buffer)
            return
        }
        ready = true
    }

    /// Records a failed render: the frame stays planned and is tried again.
    mutating func fail(id: UInt64, reason: String) {
        renderFailures += 1
        failureReason = reason
        if let i = queue.firstIndex(where: { $0.id == id }) { queue[i].inFlight = false }
        if let i = idleQueue.firstIndex(where: { $0.id == id }) { idleQueue[i].inFlight = false }
    }

    /// Keeps a spare buffer of the current mode for the next render.
    mutating func recycle(_ buffer: FrameBuffer?) {
        guard let buffer, buffer.mode == mode, buffer.bytes.count == frameBytes, pool.count < spareBuffers else { return }
        pool.append(buffer)
    }

    /// Frame memory kept for reuse: two frames, one for large frames (over 4 MB, 1080x1920), where one spare
    /// is enough for the steady state and each more costs 6 MB.
    var spareBuffers: Int { frameBytes > 4 << 20 ? 1 : 2 }

    /// A new mode or seed: every planned frame renders again, idle frames are planned again.
    mutating func invalidateRenders(replanIdle: Bool) {
        pool.removeAll()
        for i in queue.indices {
            queue[i].buffer = nil
            queue[i].inFlight = false
        }
        if replanIdle {
            idleQueue.removeAll()
        } else {
            for i in idleQueue.indices {
                idleQueue[i].buffer = nil
                idleQueue[i].inFlight = false
            }
        }
    }
}
