/// The one rule between float samples (full scale -1...1) and the engine's 16-bit samples, used by every
/// entry point that takes float audio (the C interface's feed, Essence2Kit, the command, the bindings through
/// the C interface).
package enum SampleConversion {
    /// Rounds `value * 32768` to the nearest (ties to even) and clips to -32768...32767; NaN and infinities
    /// are silence. The inverse of `float(_:)`, so 16-bit audio read as floats (libsndfile's normalised reading
    /// divides by 32768) comes back bit-exact.
    package static func int16(_ value: Float) -> Int16 {
        guard value.isFinite else { return 0 }
        let scaled = (value * 32768).rounded(.toNearestOrEven)
        if scaled >= 32767 { return 32767 }
        if scaled <= -32768 { return -32768 }
        return Int16(scaled)
    }

    /// A 16-bit sample as a float: `value / 32768`.
    package static func float(_ value: Int16) -> Float {
        Float(value) / 32768
    }
}
