/// The timeline of one reply, anchored on its first speech frame: frame k is due k frame periods later.
package struct ReplyTimeline: Sendable, Equatable {
    /// When the anchor frame was handed out (ns).
    package let anchorTime: Int64
    /// Index within the reply of the anchor frame.
    package let anchorIndex: Int
    /// One frame period (ns).
    package let period: Int64

    package init(anchorTime: Int64, anchorIndex: Int, period: Int64 = FrameClock.period) {
        self.anchorTime = anchorTime
        self.anchorIndex = anchorIndex
        self.period = period
    }

    /// When frame `index` of the reply is due (ns).
    package func due(_ index: Int) -> Int64 {
        anchorTime + Int64(index - anchorIndex) * period
    }

    /// A frame shown at `now` would be a full frame period late: skip it.
    package func isLate(_ index: Int, at now: Int64) -> Bool {
        now >= due(index) + period
    }

    /// The frame is not yet due at `now`, even allowing for an early caller.
    package func isEarly(_ index: Int, at now: Int64) -> Bool {
        now < due(index) - FrameClock.earlyTolerance
    }
}
