extension Articulation {
    /// One frame of held silence after this one (a live reply's audio ran dry): the visible opening
    /// jaw x (1 - press) shrinks to 0.55 of itself every frame and never grows (press x 0.5 with the jaw
    /// following so that it cannot), spread x 0.7, tongue x 0.5, so the mouth eases closed over a few frames
    /// without reopening. Both lip-sync pipelines hold this way.
    func heldTowardRest() -> Articulation {
        let press = lipPress * 0.5
        // (1 - lipPress) / (1 - press) <= 1: a pressed mouth releases its press without opening.
        let keep = (1 - lipPress) / max(1 - press, 1e-6)
        return Articulation(jawOpen: jawOpen * 0.55 * keep, lipSpread: lipSpread * 0.7, lipPress: press,
                            tongueTip: tongueTip * 0.5).clamped()
    }
}
