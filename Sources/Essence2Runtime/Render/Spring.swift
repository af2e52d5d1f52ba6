/// A critically damped spring stepped once per 40 ms frame: a value that follows its target smoothly (no
/// overshoot, continuous velocity), for motion that must never look jittery.
struct Spring: Sendable, Equatable, Hashable {
    var value: Float = 0
    var velocity: Float = 0
    /// Natural angular frequency, radians per second: about 2.4 / omega seconds to get most of the way.
    let omega: Float

    init(omega: Float) { self.omega = omega }

    /// Moves one frame towards `target` (two half steps, semi-implicit, stable for omega up to ~40).
    mutating func step(toward target: Float) {
        let dt = 0.5 / Float(StreamFormat.framesPerSecond)
        for _ in 0..<2 {
            velocity += (omega * omega * (target - value) - 2 * omega * velocity) * dt
            value += velocity * dt
        }
    }

    /// At rest at 0.
    mutating func reset() {
        value = 0
        velocity = 0
    }
}
