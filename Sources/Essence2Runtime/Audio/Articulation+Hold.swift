extension Articulation {
    /// One frame of held silence after this one (a live reply's audio ran dry): jaw x 0.55, spread x 0.7,
    /// press x 0.5, so the mouth eases closed over a few frames. Both lip-sync pipelines hold this way.
    func heldTowardRest() -> Articulation {
        Articulation(jawOpen: jawOpen * 0.55, lipSpread: lipSpread * 0.7, lipPress: lipPress * 0.5,
                     tongueTip: tongueTip * 0.5).clamped()
    }
}
