extension EngineState {
    /// Queues audio for the running reply, or starts a new one. All or nothing: false when the ring lacks room.
    mutating func push(_ samples: UnsafeBufferPointer<Int16>, now: Int64) -> PushOutcome {
        if samples.isEmpty { return .queued }
        guard !stopped else { return .stopped }
        guard samples.count <= EngineState.ringCapacity - bufferedSamples else { return .ringFull(buffered: bufferedSamples) }
        endRepliesAfterSilence(now: now)
        if replies.last.map({ $0.ended }) ?? true {
            replies.append(ReplyInput(id: makeID(), now: now, model: lipSyncModel, cadence: cadence, weights: weights))
        }
        replies[replies.count - 1].lipSync.append(samples)
        replies[replies.count - 1].lastPush = now
        return .queued
    }

    /// The running reply's audio is complete.
    mutating func endUtterance() {
        guard let last = replies.indices.last, !replies[last].ended else { return }
        replies[last].ended = true
    }

    /// A reply without new audio for 0.6 s (wall time) is complete.
    mutating func endRepliesAfterSilence(now: Int64) {
        guard let last = replies.indices.last, !replies[last].ended,
              now - replies[last].lastPush >= EngineState.silenceTimeout else { return }
        replies[last].ended = true
    }

    /// Barge-in: drops all queued audio and reply frames; a reply being shown eases to rest from the frame
    /// last shown, and ends here (once).
    mutating func reset(now: Int64) {
        let endedShownReply = tracker.interrupt()
        for frame in queue { recycle(frame.buffer) }
        queue.removeAll()
        replies.removeAll()
        idleWanted = false
        if endedShownReply, let shown = lastShown {
            var ramp = ReplyInput(id: makeID(), now: now, model: lipSyncModel, cadence: cadence, weights: weights)
            ramp.ended = true
            ramp.phase = .ramp(from: shown.articulation, step: 0)
            ramp.nextIndex = shown.index + 1
            ramp.motionBase = shown.motion - shown.index
            ramp.lastArticulation = shown.articulation
            ramp.gesture = shown.gesture ?? speechMotion
            replies.append(ramp)
        }
    }

    /// Stops the engine: nothing more is planned, rendered or handed out.
    mutating func stop() {
        stopped = true
        queue.removeAll()
        idleQueue.removeAll()
        replies.removeAll()
        pool.removeAll()
    }
}

extension EngineState {
    /// The host has played `samples` of the current reply's audio (the one being shown, else the next one).
    mutating func reportPlayout(_ samples: Int64) {
        let shown = tracker.inReply && isShownReplyPending ? lastShown?.replyID : nil
        // On the audio clock a reply's sound starts with its first frame: a report before that is the previous
        // reply's sound (a player not yet restarted) and says nothing about this one.
        guard let id = shown ?? (pacing == .audioClock ? nil : replies.first?.id) else { return }
        if id != playoutReplyID {
            playoutReplyID = id
            playout.newReply()
        }
        playout.report(samples)
    }
}
