extension String {
    /// The string without trailing "\n" and "\r".
    func trimmingTrailingNewline() -> String {
        var result = self
        while let last = result.last, last == "\n" || last == "\r" { result.removeLast() }
        return result
    }
}

extension String {
    /// The string without a final "." (library messages end in one; ours go on after them).
    func trimmingTrailingPeriod() -> String {
        hasSuffix(".") ? String(dropLast()) : self
    }
}
