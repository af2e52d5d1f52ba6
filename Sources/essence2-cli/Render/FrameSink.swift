/// Where rendered frames go: an encoder (MP4 through ffmpeg) or a .y4m file with a .wav beside it.
protocol FrameSink: AnyObject {
    /// The files this sink produces, for the closing message.
    var outputs: [String] { get }
    /// Appends one frame of `width * height * 3` bytes, B,G,R.
    func append(bgr: UnsafeRawBufferPointer) throws(CLIError)
    /// Completes the output after the last of `frameCount` frames.
    func finish(frameCount: Int) throws(CLIError)
    /// Stops after a failure and removes partial output.
    func abandon()
}
