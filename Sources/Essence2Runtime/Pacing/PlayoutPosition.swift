/// Where the host's audio playout stands within the running reply, for skipping frames whose audio has played.
package struct PlayoutPosition: Sendable, Equatable {
    /// Samples of the running reply the host reported as played.
    package private(set) var samplesPlayed: Int64 = 0

    package init() {}

    /// Records a report; positions never go back within a reply.
    package mutating func report(_ samples: Int64) {
        samplesPlayed = max(samplesPlayed, samples)
    }

    /// Starts a new reply at 0.
    package mutating func newReply() {
        samplesPlayed = 0
    }

    /// A frame whose audio ends at sample `audioEnd` of the reply has completely played.
    package func hasPlayed(audioEnd: Int64) -> Bool {
        audioEnd > 0 && audioEnd <= samplesPlayed
    }
}
