/// The outcome of asking for a frame.
enum TakeResult {
    /// A frame to hand out (copy `buffer`, then give it back with `recycle`).
    case frame(FrameBuffer, FrameKind)
    /// Nothing is due yet: keep showing the current frame.
    case notDue
    /// The caller's buffer is smaller than a frame of the current mode.
    case tooSmall
}

extension EngineState {
    /// Takes the frame due at `now`: a reply frame, or an idle frame between replies (or always, with `idleOnly`).
    mutating func take(now: Int64, idleOnly: Bool, capacity: Int) -> TakeResult {
        guard !stopped else { return .notDue }
        guard capacity >= frameBytes else { return .tooSmall }
        endRepliesAfterSilence(now: now)
        if pacing.isPaced, !clock.isDue(at: now) {
            guard !idleOnly, replyStartIsReady(now: now) else { return .notDue }
            clock.restart()
        }
        if !idleOnly {
            if let frame = takeReplyFrame(now: now) { return show(frame, now: now) }
            // Unpaced: while a reply's audio is queued, only its frames come out.
            if pacing == .unpaced, !replies.isEmpty { return .notDue }
            // Realtime: a reply being shown is not interrupted by idle frames.
            if tracker.inReply, isShownReplyPending { return .notDue }
        }
        guard let first = idleQueue.first, first.isRendered else {
            if idleOnly {
                idleWanted = true
                needsPlanning = true
            }
            return .notDue
        }
        idleQueue.removeFirst()
        return show(first, now: now)
    }

    /// Realtime: the next frame starts a reply, is rendered, and its slot is within the cadence's reply-start
    /// lead: it may go out now.
    private func replyStartIsReady(now: Int64) -> Bool {
        guard pacing == .realtime, cadence.replyStartLead > 0, let due = clock.nextDue,
              now >= due - cadence.replyStartLead, let front = queue.first, front.kind == .speech, front.isRendered,
              front.index == 0, timeline?.replyID != front.replyID, lastShown?.kind != .speech else { return false }
        return true
    }

    /// Frames ready to pull now: 0 when a pull would return nothing.
    func available(now: Int64) -> Int {
        var probe = self
        guard case .frame = probe.take(now: now, idleOnly: false, capacity: frameBytes) else { return 0 }
        let source = (probe.lastShown?.kind == .idle) ? idleQueue : queue
        var count = 0
        for frame in source {
            guard frame.isRendered else { break }
            count += 1
        }
        return max(count, 1)
    }

    private mutating func takeReplyFrame(now: Int64) -> PlannedFrame? {
        dropRampBeforeNextReply()
        while let front = queue.first {
            if pacing == .audioClock, front.kind == .speech {
                // The host's audio clock: skipped once all its audio has played, due once its first sample
                // is about to (a caller may be up to the frame clock's tolerance early).
                let played = playoutReplyID == front.replyID ? playout.samplesPlayed : 0
                if front.audioEnd > 0, front.audioEnd <= played {
                    skippedFrames += 1
                    drop(at: 0)
                    continue
                }
                guard front.isRendered else { return nil }
                let start = front.audioEnd - Int64(cadence.samplesPerFrame)
                if start > played + Self.audioClockTolerance { return nil }
                return queue.removeFirst()
            }
            if pacing == .realtime, front.kind == .speech {
                if let anchored = timeline, anchored.replyID == front.replyID {
                    let played = playoutReplyID == front.replyID && playout.hasPlayed(audioEnd: front.audioEnd)
                    if anchored.line.isLate(front.index, at: now) || played {
                        skippedFrames += 1
                        resyncToPlayout = resyncToPlayout || played
                        drop(at: 0)
                        continue
                    }
                    if resyncToPlayout {
                        // The host's audio is ahead of the timeline: the first unplayed frame is due now.
                        guard front.isRendered else { return nil }
                        timeline = (front.replyID, ReplyTimeline(anchorTime: now, anchorIndex: front.index, period: cadence.period))
                        resyncToPlayout = false
                    } else if anchored.line.isEarly(front.index, at: now) {
                        return nil
                    }
                } else if !front.isRendered {
                    return nil
                } else if playoutAnchor {
                    skipToLiveAudio(of: front.replyID, now: now)
                    guard let live = queue.first, live.replyID == front.replyID, live.isRendered else { return nil }
                }
            }
            guard queue[0].isRendered else { return nil }
            return queue.removeFirst()
        }
        return nil
    }

    /// When a reply's ramp has begun and the next reply is there, the rest of the ramp goes: unpaced as soon
    /// as the next reply's audio is queued (so the output does not depend on render timing), realtime when
    /// its first frame is ready (so the display never waits).
    private mutating func dropRampBeforeNextReply() {
        guard let front = queue.first, front.kind == .ramp, let shown = lastShown,
              shown.kind == .ramp, shown.replyID == front.replyID else { return }
        let nextReplyIsThere = pacing == .unpaced
            ? replies.contains { $0.id != front.replyID }
            : queue.contains { $0.replyID != front.replyID && $0.isRendered }
        guard nextReplyIsThere else { return }
        for frame in queue where frame.replyID == front.replyID { recycle(frame.buffer) }
        queue.removeAll { $0.replyID == front.replyID }
        if let r = replies.firstIndex(where: { $0.id == front.replyID }) { replies[r].phase = .done }
        retireFinishedReplies()
        needsPlanning = true
    }

    /// Playout anchor: a reply starts at the live audio position, skipping its queued frames whose audio has
    /// played (the planner skips the audio not yet planned, see `skipPlayedAudio`).
    private mutating func skipToLiveAudio(of replyID: UInt64, now: Int64) {
        guard let reply = replies.first(where: { $0.id == replyID }) else { return }
        let live = liveAudioPosition(of: reply, now: now)
        // Keep the reply's last frame when nothing of it remains to plan.
        func hasLaterFrame() -> Bool {
            reply.lipSync.bufferedSamples > 0 || (queue.count > 1 && queue[1].replyID == replyID)
        }
        while let front = queue.first, front.replyID == replyID, front.kind == .speech, front.audioEnd <= live,
              hasLaterFrame() {
            anchorSlots += 1
            drop(at: 0)
        }
    }

    /// How many samples early (10 ms) a speech frame may go out on the host's audio clock: a sound card reports
    /// in blocks, and a frame shown a few ms before its sound is heard reads as on time.
    static let audioClockTolerance = Int64(StreamFormat.sampleRate / 100)

    private mutating func drop(at index: Int) {
        recycle(queue[index].buffer)
        queue.remove(at: index)
        retireFinishedReplies()
        needsPlanning = true
    }

    private mutating func show(_ frame: PlannedFrame, now: Int64) -> TakeResult {
        guard let buffer = frame.buffer else { return .notDue }
        if pacing.isPaced { clock.take(at: now) }
        _ = tracker.observe(frame.kind)
        if frame.kind == .speech {
            pulledSpeechFrames += 1
            // A reply's first speech frame handed out anchors its timeline.
            if timeline?.replyID != frame.replyID {
                timeline = (frame.replyID, ReplyTimeline(anchorTime: now, anchorIndex: frame.index, period: cadence.period))
            }
        }
        if frame.kind != .idle {
            // Idle frames planned to come before this one are stale.
            idleQueue.removeAll { $0.motion <= frame.motion }
        }
        lastShown = ShownFrame(
            kind: frame.kind, replyID: frame.replyID, index: frame.index,
            articulation: frame.params.articulation, motion: frame.motion, gesture: frame.gesture,
            audioEnd: frame.audioEnd)
        retireFinishedReplies()
        record(frame)
        return .frame(buffer, frame.kind)
    }

    /// Records the frame being handed out (after the tracker has observed it).
    private mutating func record(_ frame: PlannedFrame) {
        let skipped = skippedFrames + anchorSlots
        let isReplyFrame = frame.kind != .idle
        var audioTime: Double?
        if frame.kind == .speech {
            audioTime = Double(frame.audioEnd - Int64(frame.audio.count)) / Double(StreamFormat.sampleRate)
        }
        lastRecord = FrameRecord(
            kind: frame.kind, sequence: handedOut, reply: isReplyFrame ? tracker.started : 0,
            replyFrame: isReplyFrame ? frame.index : -1, audioTime: audioTime,
            endsReply: tracker.ended > endedAtLastHandout, skippedBefore: skipped - skippedAtLastHandout,
            audio: frame.audio)
        handedOut += 1
        skippedAtLastHandout = skipped
        endedAtLastHandout = tracker.ended
    }
}
