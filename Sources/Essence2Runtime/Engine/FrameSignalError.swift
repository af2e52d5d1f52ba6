/// Why an engine could not make its frame descriptor (`be_essence2_frame_fd`).
package struct FrameSignalError: Error, Sendable {
    package var reason: String
}
