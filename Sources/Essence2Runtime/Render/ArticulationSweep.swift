/// The named mouth shapes `essence2 avatar poses` renders: rest, the vowels a e i o u, and the consonant
/// shapes m (lips pressed), f/v (lower lip under the upper teeth) and l/th (tongue tip between the teeth),
/// with the values the lip-sync model's training targets give them (tools/lipsync/targets.py).
package enum ArticulationSweep {
    package static let poses: [(name: String, articulation: Articulation)] = [
        ("rest", .rest),
        ("a", Articulation(jawOpen: 0.9, lipSpread: 0.05)),
        ("e", Articulation(jawOpen: 0.5, lipSpread: 0.5)),
        ("i", Articulation(jawOpen: 0.2, lipSpread: 0.9)),
        ("o", Articulation(jawOpen: 0.45, lipSpread: -0.75)),
        ("u", Articulation(jawOpen: 0.2, lipSpread: -1)),
        ("m", Articulation(jawOpen: 0, lipPress: 1)),
        ("fv", Articulation(jawOpen: 0.1, lipPress: Articulation.labiodentalPress)),
        ("lth", Articulation(jawOpen: 0.3, tongueTip: 1)),
    ]
}
