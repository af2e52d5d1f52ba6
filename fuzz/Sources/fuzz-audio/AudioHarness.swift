import Essence2Runtime
import FuzzSupport

/// fuzz-audio: the engine's audio entry points under any calls in any order. An input picks the avatar (the
/// sample portrait or character at an eighth of its size: the audio path, not the pixels, is under test) and
/// then a sequence of `AudioStep`s. Nothing may trap, and afterwards the engine must still work: once the
/// reply is ended and pacing is unpaced, a frame comes.
enum AudioHarness {
    static let avatars = [FuzzRepository.avatar("avatars/grace-hopper.imx").downscaled(by: 8),
                          FuzzRepository.avatar("avatars/squirrel.imx").downscaled(by: 8)]
    static let steps = FuzzCounter("audio steps run")

    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        var run = EngineRun(avatar: avatars[Int(input.byte() & 1)])
        var count = 0
        while !input.isAtEnd, count < 64 {
            input.pick(AudioStep.allCases).apply(from: &input, to: &run)
            count += 1
        }
        steps.add(count)
        run.engine.endUtterance()
        run.engine.setPacing(.unpaced)
        run.takeFrame()
        run.finish()
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    AudioHarness.run(data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
    return 0
}
