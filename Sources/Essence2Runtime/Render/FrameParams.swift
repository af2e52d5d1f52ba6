/// Everything the renderer needs to draw one frame.
package struct FrameParams: Sendable, Equatable, Hashable {
    package var articulation: Articulation
    package var pose: FacePose

    package init(articulation: Articulation = .rest, pose: FacePose = .neutral) {
        self.articulation = articulation
        self.pose = pose
    }
}
