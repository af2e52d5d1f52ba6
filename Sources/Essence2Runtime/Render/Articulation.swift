/// How the mouth is shaped in one frame: the small value that audio analysis hands to the renderer.
///
/// All fields are unitless and clamped by `clamped()`; `rest` is a relaxed, closed mouth.
package struct Articulation: Sendable, Equatable, Hashable {
    /// Jaw opening, 0 (closed) ... 1 (wide open, as on "ah").
    package var jawOpen: Float
    /// Lip shape, -1 (rounded and pushed forward, as on "oo") ... 0 (neutral) ... +1 (spread, as on "ee").
    package var lipSpread: Float
    /// Lips pressed together, 0 (relaxed) ... 1 (firmly pressed, as on p/b/m). Overrides `jawOpen` at the lips.
    package var lipPress: Float
    /// Tongue tip, 0 (lying behind the lower teeth) ... 1 (raised to the upper teeth and showing between them,
    /// as on l, th, n, t, d). Seen only where the lips are apart.
    package var tongueTip: Float

    package init(jawOpen: Float = 0, lipSpread: Float = 0, lipPress: Float = 0, tongueTip: Float = 0) {
        self.jawOpen = jawOpen
        self.lipSpread = lipSpread
        self.lipPress = lipPress
        self.tongueTip = tongueTip
    }

    /// The press of f and v: the lower lip tucked under the upper teeth (`RigControls.tuck(press:)` draws the full
    /// tuck from 0.25 to 0.4), where 1 presses the lips together.
    package static let labiodentalPress: Float = 0.4

    /// The relaxed, closed mouth the face returns to between replies.
    package static let rest = Articulation()

    /// The same articulation with every field inside its range; non-finite values become rest values.
    package func clamped() -> Articulation {
        func c(_ v: Float, _ lo: Float, _ hi: Float) -> Float { v.isFinite ? min(max(v, lo), hi) : 0 }
        return Articulation(jawOpen: c(jawOpen, 0, 1), lipSpread: c(lipSpread, -1, 1), lipPress: c(lipPress, 0, 1),
                            tongueTip: c(tongueTip, 0, 1))
    }

    /// Linear blend: `t` = 0 gives `self`, 1 gives `other`.
    package func mixed(with other: Articulation, _ t: Float) -> Articulation {
        Articulation(
            jawOpen: jawOpen + (other.jawOpen - jawOpen) * t,
            lipSpread: lipSpread + (other.lipSpread - lipSpread) * t,
            lipPress: lipPress + (other.lipPress - lipPress) * t,
            tongueTip: tongueTip + (other.tongueTip - tongueTip) * t)
    }
}
