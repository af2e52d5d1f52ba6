/// Everything the renderer needs to draw one frame.
public struct FrameParams: Sendable, Equatable, Hashable {
    public var articulation: Articulation
    public var pose: FacePose

    public init(articulation: Articulation = .rest, pose: FacePose = .neutral) {
        self.articulation = articulation
        self.pose = pose
    }
}
