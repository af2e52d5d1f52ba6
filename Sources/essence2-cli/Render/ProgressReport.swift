import Essence2Runtime
import Glibc

/// Progress of a long job on standard error: on a terminal a one-line bar redrawn ten times a second; else
/// (a log, a pipe, CI) a plain line every few seconds. Both give the elapsed time, the time left and the speed.
final class ProgressReport {
    /// How progress is shown.
    enum Style {
        /// A bar redrawn in place.
        case bar
        /// A line every `interval` seconds.
        case lines(interval: Double)
    }

    private let total: Int
    private let label: String
    private let style: Style
    private let started: Double
    private var lastShown: Double
    private var lastLength = 0
    private var cadence = FrameCadence.essence2

    /// nil when `quiet`; a bar when standard error is a terminal, else lines every 5 s.
    static func make(total: Int, label: String, quiet: Bool, cadence: FrameCadence = .essence2) -> ProgressReport? {
        guard !quiet else { return nil }
        let report = ProgressReport(total: total, label: label, style: isatty(2) != 0 ? .bar : .lines(interval: 5))
        report.cadence = cadence
        return report
    }

    init(total: Int, label: String, style: Style) {
        self.total = max(total, 1)
        self.label = label
        self.style = style
        started = Clock.now()
        lastShown = started
    }

    /// Shows progress when it is time to (or always, with `force`).
    func update(done: Int, force: Bool = false) {
        let now = Clock.now()
        switch style {
        case .bar:
            guard force || now - lastShown >= 0.1 else { return }
            lastShown = now
            let line = Self.barLine(label: label, status: status(done: done, now: now), fraction: fraction(done),
                                    columns: Self.terminalColumns())
            let padding = String(repeating: " ", count: max(0, lastLength - line.count))
            lastLength = line.count
            Console.error("\r\(line)\(padding)")
        case .lines(let interval):
            guard force || now - lastShown >= interval else { return }
            lastShown = now
            Console.error("\(label): \(status(done: done, now: now))\n")
        }
    }

    /// Shows the final state (and ends the bar's line).
    func finish(done: Int) {
        update(done: done, force: true)
        if case .bar = style { Console.error("\n") }
    }

    /// Clears the bar (on failure, before an error message).
    func clear() {
        if case .bar = style { Console.error("\r" + String(repeating: " ", count: lastLength) + "\r") }
    }

    private func fraction(_ done: Int) -> Double {
        // The total is an estimate (the frames easing to rest come on top of the speech frames).
        Double(done) / Double(max(total, done))
    }

    /// "42%  500/1190 frames  0:12 elapsed, 0:17 left  18.2x real time"
    private func status(done: Int, now: Double) -> String {
        let elapsed = now - started
        let shownTotal = max(total, done)
        let speed = RenderTiming.realTimeFactor(frames: done, seconds: elapsed, cadence: cadence)
        let left = done > 0 ? elapsed * Double(shownTotal - done) / Double(done) : nil
        return Self.status(percent: Int((fraction(done) * 100).rounded(.down)), done: done, total: shownTotal,
                           elapsed: elapsed, left: left, speed: speed)
    }

    /// The status text, pure (tested).
    static func status(percent: Int, done: Int, total: Int, elapsed: Double, left: Double?, speed: Double) -> String {
        let percentText = String(percent)
        let leftText = left.map { Self.clock($0) + " left" } ?? "time left unknown"
        return String(repeating: " ", count: max(0, 3 - percentText.count)) + percentText + "%  \(done)/\(total) frames  "
            + "\(clock(elapsed)) elapsed, \(leftText)  \(Formatting.fixed(speed, digits: 1))x real time"
    }

    /// m:ss, or h:mm:ss from an hour.
    static func clock(_ seconds: Double) -> String {
        let whole = Int(max(0, seconds).rounded())
        let (hours, minutes, secs) = (whole / 3600, whole / 60 % 60, whole % 60)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(secs))" : "\(minutes):\(two(secs))"
    }

    private static func barLine(label: String, status: String, fraction: Double, columns: Int) -> String {
        let width = max(10, min(30, columns - label.count - status.count - 6))
        let filled = min(width, Int(fraction * Double(width)))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        return "\(label) [\(bar)] \(status)"
    }

    private static func terminalColumns() -> Int {
        var size = winsize()
        if ioctl(2, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }
}
