/// The frame clock (25 a second for Essence 2, 20 for Expression 2) shared by every call that hands out a frame.
///
/// Rules: a frame may be handed out when its slot is due (a caller may be up to `earlyTolerance` early, so a
/// loop sleeping 40 ms that wakes a few ms early still gets a frame every call); after a short stall the clock
/// catches up with at most 2 frames back to back; after a long stall (more than 2 frame periods) it
/// re-anchors on the present instead of bursting, counting the slots it dropped.
package struct FrameClock: Sendable, Equatable {
    /// One frame period: 40 ms.
    package static let period: Int64 = 40_000_000
    /// This clock's frame period (40 ms at 25 frames a second, 50 ms at 20).
    package let period: Int64
    /// How early a caller may ask and still get the frame of the coming slot.
    package static let earlyTolerance: Int64 = 10_000_000

    /// When the next slot is due; nil before the first frame.
    package private(set) var nextDue: Int64?
    /// Slots dropped by re-anchoring after long stalls.
    package private(set) var reanchoredSlots: Int64 = 0

    package init(period: Int64 = FrameClock.period) {
        self.period = period
    }

    /// Whether a frame may be handed out at `now`.
    package func isDue(at now: Int64) -> Bool {
        guard let due = nextDue else { return true }
        return now >= due - FrameClock.earlyTolerance
    }

    /// Records that a frame was handed out at `now` (call only when `isDue(at:)` is true).
    package mutating func take(at now: Int64) {
        guard let due = nextDue else {
            nextDue = now + period
            return
        }
        let late = now - due
        if late > 2 * period {
            // Long stall: drop the missed slots and start again from now, without a burst.
            reanchoredSlots += late / period
            nextDue = now + period
        } else {
            // On time, or a short stall: keep the schedule; a stall of more than one period is
            // followed, so at most one extra frame comes back to back.
            nextDue = max(due + period, now)
        }
    }

    /// Forgets the schedule: the next frame is due at once.
    package mutating func restart() {
        nextDue = nil
    }
}
