import Glibc

/// A one-line progress bar on standard error, drawn only when standard error is a terminal.
final class ProgressBar {
    private let total: Int
    private let label: String
    private let started: Double
    private var lastDrawn: Double = -1
    private var lastLength = 0

    /// nil when standard error is not a terminal (nothing to draw then).
    init?(total: Int, label: String) {
        guard isatty(2) != 0 else { return nil }
        self.total = max(total, 1)
        self.label = label
        started = Clock.now()
    }

    /// Redraws at most ten times a second unless `force`.
    func update(done: Int, force: Bool = false) {
        let now = Clock.now()
        guard force || now - lastDrawn >= 0.1 else { return }
        lastDrawn = now
        let elapsed = now - started
        // The total is an estimate (the frames easing to rest come on top of the speech frames).
        let shownTotal = max(total, done)
        let fraction = Double(done) / Double(shownTotal)
        let speed = RenderTiming.realTimeFactor(frames: done, seconds: elapsed)
        let tail = String(format3(fraction * 100)) + "%  \(done)/\(shownTotal) frames  " + format1(speed) + "x real time"
        let width = max(10, min(30, Self.terminalColumns() - label.count - tail.count - 6))
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let line = "\(label) [\(bar)] \(tail)"
        let padding = String(repeating: " ", count: max(0, lastLength - line.count))
        lastLength = line.count
        Console.error("\r\(line)\(padding)")
    }

    /// Draws the final state and ends the line.
    func finish(done: Int) {
        update(done: done, force: true)
        Console.error("\n")
    }

    /// Clears the line (on failure, before an error message).
    func clear() {
        Console.error("\r" + String(repeating: " ", count: lastLength) + "\r")
    }

    private func format3(_ value: Double) -> String {
        let text = String(Int(value.rounded(.down)))
        return String(repeating: " ", count: max(0, 3 - text.count)) + text
    }

    private func format1(_ value: Double) -> String { Formatting.fixed(value, digits: 1) }

    private static func terminalColumns() -> Int {
        var size = winsize()
        if ioctl(2, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }
}
