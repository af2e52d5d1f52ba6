/// Whether a frame may be handed out now.
package enum MeterPermission: Sendable, Equatable {
    case allowed
    /// `pull_frame` / `idle_frame` return -3 with this reason.
    case refused(reason: String)
}
