import Synchronization

/// Asks a frame being drawn to stop between bands: the engine is stopping (`be_expression2_destroy`,
/// `be_essence2_destroy`, `Engine.stop`) or a newer preview replaced it (the rig editor). A cancelled frame is
/// left unfinished and never handed out.
package final class RenderCancellation: Sendable {
    private let flag = Atomic<Bool>(false)

    package init() {}

    /// Cancels every frame drawn with this from now on, and the one in progress at its next band.
    package func cancel() {
        flag.store(true, ordering: .releasing)
    }

    package var isCancelled: Bool { flag.load(ordering: .acquiring) }
}
