/// Plain-text tables: columns padded to their widest cell; the first two columns left-aligned, the rest right-aligned.
enum TextTable {
    static func render(_ rows: [[String]]) -> String {
        let columns = rows.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columns)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        var lines: [String] = []
        for row in rows {
            var line = ""
            for index in 0..<columns {
                let cell = index < row.count ? row[index] : ""
                let padding = String(repeating: " ", count: widths[index] - cell.count)
                line += index < 2 ? cell + padding : padding + cell
                if index < columns - 1 { line += "   " }
            }
            while line.hasSuffix(" ") { line.removeLast() }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
