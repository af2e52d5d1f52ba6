/// Number formatting without Foundation's locale machinery.
enum Formatting {
    /// `value` with exactly `digits` decimals, rounded half away from zero: fixed(2.345, digits: 1) == "2.3".
    static func fixed(_ value: Double, digits: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value > 0 ? "inf" : "-inf") }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        let negative = value < 0 && scaled > 0
        guard scaled < 9e15 else { return String(value) }
        let whole = Int(scaled) / Int(scale)
        let fraction = Int(scaled) % Int(scale)
        var text = (negative ? "-" : "") + String(whole)
        if digits > 0 {
            let fractionText = String(fraction)
            text += "." + String(repeating: "0", count: digits - fractionText.count) + fractionText
        }
        return text
    }
}
