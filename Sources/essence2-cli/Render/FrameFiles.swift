import Glibc

/// The PNG frames `render --frames DIR` writes: each appears whole (`PNGWriter` writes through the runtime's
/// atomic writer), and `remove()` takes back every file written, and the directory if this run created it.
final class FrameFiles {
    let directory: String
    private let createdDirectory: Bool
    private var written: [String] = []

    /// Uses `directory`, creating it when it does not exist.
    init(directory: String) throws(CLIError) {
        self.directory = directory
        let existed = FileCheck.isDirectory(directory)
        try Directory.create(directory)
        createdDirectory = !existed
    }

    /// `DIR/frame_00000.png`, numbered from 0.
    static func path(directory: String, index: Int) -> String {
        "\(directory)/\(name(prefix: "frame", index: index))"
    }

    /// `PREFIX_00000.png`, numbered from 0.
    static func name(prefix: String, index: Int) -> String {
        let number = String(index)
        return "\(prefix)_\(String(repeating: "0", count: max(0, 5 - number.count)))\(number).png"
    }

    /// Writes frame `index` (`frame_00000.png` ...).
    func write(index: Int, bgr: UnsafeRawBufferPointer, width: Int, height: Int) throws(CLIError) {
        try write(name: Self.name(prefix: "frame", index: index), bgr: bgr, width: width, height: height)
    }

    /// Writes the image `name` (a file name in the directory).
    func write(name: String, bgr: UnsafeRawBufferPointer, width: Int, height: Int) throws(CLIError) {
        let final = "\(directory)/\(name)"
        try PNGWriter.write(path: final, bgr: bgr, width: width, height: height)
        written.append(final)
    }

    /// Removes every frame written (after a failure or an interruption).
    func remove() {
        for file in written { unlink(file) }
        written.removeAll()
        if createdDirectory { rmdir(directory) }
    }
}
