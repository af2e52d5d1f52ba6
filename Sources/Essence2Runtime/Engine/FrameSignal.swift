
#if canImport(Glibc)
import Glibc
#endif

/// A file descriptor that is readable while a frame can be pulled, for hosts that wait in `poll`/`epoll` or an
/// event loop instead of sleeping (`be_essence2_frame_fd`). It is the read end of a non-blocking pipe: the
/// engine writes one byte to raise it and drains it to lower it, so it is level-triggered and never blocks the
/// engine. Created on first use; closed when the engine is destroyed (`close()`), at the latest when it is released.
package final class FrameSignal: Sendable {
    /// The read end, handed to the host.
    package let descriptor: Int32
    private let writeEnd: Int32
    /// Raised or not, and whether both ends are closed (then `set` does nothing: the numbers may be reused).
    private let state = Locked(State())

    private struct State {
        var raised = false
        var closed = false
    }

    /// nil when the pipe cannot be made (out of file descriptors); `reason` says why.
    package init?(reason: inout String) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            reason = "cannot create the frame descriptor: \(String(cString: strerror(errno)))"
            return nil
        }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        descriptor = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close()
    }

    /// Closes both ends now, whichever thread still holds the signal (the render thread lets go of it only
    /// when it ends); later `set` calls do nothing. Idempotent.
    package func close() {
        state.withLock { state in
            guard !state.closed else { return }
            state.closed = true
            _ = Glibc.close(descriptor)
            _ = Glibc.close(writeEnd)
        }
    }

    /// Makes the descriptor readable (`true`) or not (`false`); a no-op when it already is, or once closed.
    package func set(_ ready: Bool) {
        state.withLock { state in
            guard !state.closed, state.raised != ready else { return }
            var byte: UInt8 = 1
            if ready {
                state.raised = write(writeEnd, &byte, 1) == 1
            } else {
                while read(descriptor, &byte, 1) == 1 {}
                state.raised = false
            }
        }
    }
}
