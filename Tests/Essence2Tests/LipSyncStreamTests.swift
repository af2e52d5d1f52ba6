import Testing
@testable import Essence2Runtime
@testable import Essence2Vision
@testable import Essence2Authoring

/// Helpers for driving a `LipSyncStream` the way the engine does.
enum LipSyncDriver {
    /// Appends `chunks` one by one, taking every frame that is ready after each, then flushes the rest.
    static func frames(_ samples: [Int16], chunkSizes: [Int], model: LipSyncModel = .learned) -> [Articulation] {
        var stream = LipSyncStream(model: model)
        var out: [Articulation] = []
        var position = 0
        for size in chunkSizes where position < samples.count {
            let end = min(position + size, samples.count)
            samples[position..<end].withUnsafeBufferPointer { stream.append($0) }
            position = end
            while let a = stream.nextFrame(flush: false) { out.append(a) }
        }
        if position < samples.count {
            samples[position...].withUnsafeBufferPointer { stream.append($0) }
        }
        while let a = stream.nextFrame(flush: false) { out.append(a) }
        while let a = stream.nextFrame(flush: true) { out.append(a) }
        return out
    }

    /// All frames of `samples` appended at once.
    static func frames(_ samples: [Int16], model: LipSyncModel = .learned) -> [Articulation] {
        frames(samples, chunkSizes: [samples.count], model: model)
    }

    static func bits(_ a: Articulation) -> [UInt32] {
        [a.jawOpen.bitPattern, a.lipSpread.bitPattern, a.lipPress.bitPattern]
    }
}

@Test func lookaheadIsAtMost80Milliseconds() {
    #expect(LipSyncStream.samplesPerFrame == 640)
    #expect(LipSyncStream.lookaheadSamples >= 0 && LipSyncStream.lookaheadSamples <= 1280)
}

@Test func noFrameUntilTheFrameAndItsLookaheadAreBuffered() {
    var stream = LipSyncStream()
    let needed = LipSyncStream.samplesPerFrame + LipSyncStream.lookaheadSamples
    let audio = [Int16](repeating: 100, count: needed + 640)
    audio[0..<(needed - 1)].withUnsafeBufferPointer { stream.append($0) }
    #expect(stream.bufferedSamples == needed - 1)
    #expect(stream.nextFrame(flush: false) == nil)
    audio[(needed - 1)..<needed].withUnsafeBufferPointer { stream.append($0) }
    #expect(stream.nextFrame(flush: false) != nil)
    #expect(stream.bufferedSamples == needed - 640)
    #expect(stream.nextFrame(flush: false) == nil)
    audio[needed...].withUnsafeBufferPointer { stream.append($0) }
    #expect(stream.nextFrame(flush: false) != nil)
    #expect(stream.bufferedSamples == needed - 640)
}

@Test func flushYieldsOneFramePerStartedFrameThenNil() {
    for count in [0, 1, 639, 640, 641, 1000, 1880, 5000, 12345] {
        var stream = LipSyncStream()
        let audio = (0..<count).map { Int16(truncatingIfNeeded: $0 &* 7919) }
        audio.withUnsafeBufferPointer { stream.append($0) }
        var frames = 0
        while stream.nextFrame(flush: true) != nil { frames += 1 }
        #expect(frames == (count + 639) / 640, "\(count) samples")
        #expect(stream.bufferedSamples == 0)
        #expect(stream.nextFrame(flush: true) == nil)
        #expect(stream.nextFrame(flush: false) == nil)
    }
}

@Test(arguments: LipSyncModel.allCases)
func outputDoesNotDependOnHowAudioIsChunked(model: LipSyncModel) throws {
    let speech = try SpeechFixture.samples("speech_bilabial")
    let reference = LipSyncDriver.frames(speech, model: model).map(LipSyncDriver.bits)
    #expect(reference.count == (speech.count + 639) / 640)
    for seed in [1, 2, 3] as [UInt64] {
        var random = TestRandom(seed: seed)
        let sizes = (0..<2000).map { _ in random.below(seed == 3 ? 40 : 3000) }
        let chunked = LipSyncDriver.frames(speech, chunkSizes: sizes, model: model).map(LipSyncDriver.bits)
        #expect(chunked == reference, "seed \(seed)")
    }
    let oneByOne = LipSyncDriver.frames(
        speech, chunkSizes: [Int](repeating: 1, count: speech.count), model: model)
    #expect(oneByOne.map(LipSyncDriver.bits) == reference)
}

@Test(arguments: LipSyncModel.allCases)
func sameAudioGivesTheSameArticulation(model: LipSyncModel) throws {
    let speech = try SpeechFixture.samples("speech_vowels")
    let a = LipSyncDriver.frames(speech, model: model).map(LipSyncDriver.bits)
    let b = LipSyncDriver.frames(speech, model: model).map(LipSyncDriver.bits)
    #expect(a == b)
}

@Test(arguments: LipSyncModel.allCases)
func flushDoesNotLeaveSilenceInTheStream(model: LipSyncModel) throws {
    // A sustained open vowel: flushing after its third frame (look-ahead missing, read as silence) must not
    // make later frames see a gap once the real audio arrives. (A flushed frame shows what the audio so far
    // says: 120 ms of "A:" is an open vowel; a 40 ms blip cut off by silence would be a short sound.)
    let vowels = try SpeechFixture.samples("speech_vowels")
    let vowel = Array(vowels[0..<5760])  // the first 360 ms, inside "A:"
    let reference = LipSyncDriver.frames(vowel, model: model)

    var stream = LipSyncStream(model: model)
    vowel[0..<1920].withUnsafeBufferPointer { stream.append($0) }
    var early: [Articulation] = []
    while let a = stream.nextFrame(flush: false) { early.append(a) }
    while let a = stream.nextFrame(flush: true) { early.append(a) }
    #expect(early.count == 3)
    let first = try #require(early.last)
    #expect(stream.bufferedSamples == 0)
    vowel[1920...].withUnsafeBufferPointer { stream.append($0) }
    var later: [Articulation] = []
    while let a = stream.nextFrame(flush: false) { later.append(a) }
    while let a = stream.nextFrame(flush: true) { later.append(a) }
    #expect(3 + later.count == reference.count)
    #expect(first.jawOpen > 0.3)
    for (k, a) in later.enumerated() where k + 3 < reference.count - 2 {
        // Same audio, same hop grid: only v1's smoothing memory of the flushed frames differs, and it fades.
        #expect(abs(a.jawOpen - reference[k + 3].jawOpen) < (k == 0 ? 0.1 : 0.05), "frame \(k + 3)")
        #expect(a.lipPress < 0.1, "frame \(k + 3)")
    }
    #expect(abs(later[3].jawOpen - reference[6].jawOpen) < 0.002)
    if model == .learned {
        // The learned model has no memory of its outputs: the later frames are exactly the unflushed ones.
        #expect(later.map(LipSyncDriver.bits) == reference[3...].map(LipSyncDriver.bits))
    }

    // A flushed partial frame: the next frame starts right after its audio, still without a gap.
    var partial = LipSyncStream(model: model)
    vowel[0..<1000].withUnsafeBufferPointer { partial.append($0) }
    var flushed = 0
    while partial.nextFrame(flush: true) != nil { flushed += 1 }
    #expect(flushed == 2)
    vowel[1000...].withUnsafeBufferPointer { partial.append($0) }
    var resumed: [Articulation] = []
    while let a = partial.nextFrame(flush: false) { resumed.append(a) }
    #expect(!resumed.isEmpty)
    #expect(resumed.allSatisfy { $0.jawOpen > 0.6 && $0.lipPress < 0.1 })
}

@Test(arguments: LipSyncModel.allCases)
func holdFrameEasesClosedSmoothlyWithoutConsumingAudio(model: LipSyncModel) throws {
    let vowels = try SpeechFixture.samples("speech_vowels")
    var stream = LipSyncStream(model: model)
    vowels[0..<6400].withUnsafeBufferPointer { stream.append($0) }
    var last = Articulation.rest
    while let a = stream.nextFrame(flush: false) { last = a }
    #expect(last.jawOpen > 0.6)
    let buffered = stream.bufferedSamples
    var previous = last
    for k in 0..<12 {
        let held = stream.holdFrame()
        #expect(held.jawOpen <= previous.jawOpen)
        #expect(held.jawOpen >= previous.jawOpen * 0.4, "hold frame \(k) jumps")
        #expect(abs(held.lipSpread) <= abs(previous.lipSpread))
        #expect(held.lipPress <= previous.lipPress)
        previous = held
    }
    #expect(previous.jawOpen < 0.01)
    #expect(stream.bufferedSamples == buffered)
    // The audio is still there afterwards, and with more of it the mouth opens again, smoothly.
    #expect(stream.nextFrame(flush: false) == nil)
    vowels[6400..<7040].withUnsafeBufferPointer { stream.append($0) }
    let next = stream.nextFrame(flush: false)
    let resumed = try #require(next)
    #expect(resumed.jawOpen > previous.jawOpen)
    if model == .v1 {
        #expect(resumed.jawOpen < 0.8)  // v1 smooths its way back open
    } else {
        // The learned model's frames depend only on the audio: held frames leave no trace.
        #expect(resumed == LipSyncDriver.frames(Array(vowels[0..<7040]), model: .learned)[8])
    }
}

@Test func outputsAreFiniteAndWithinRange() throws {
    var inputs: [[Int16]] = [
        try SpeechFixture.samples("speech_bilabial"),
        try SpeechFixture.samples("speech_vowels"),
        [Int16](repeating: 0, count: 8000),
        [Int16](repeating: Int16.max, count: 8000),
        (0..<8000).map { $0 % 2 == 0 ? Int16.max : Int16.min },
        (0..<8000).map { $0 / 40 % 2 == 0 ? Int16.max : Int16.min },
    ]
    var random = TestRandom(seed: 9)
    inputs.append((0..<16000).map { _ in Int16(truncatingIfNeeded: random.next()) })
    for input in inputs {
        for model in LipSyncModel.allCases {
            var stream = LipSyncStream(model: model)
            var frames = LipSyncDriver.frames(input, model: model)
            for _ in 0..<5 { frames.append(stream.holdFrame()) }
            for a in frames {
                #expect(a.jawOpen.isFinite && a.lipSpread.isFinite && a.lipPress.isFinite)
                #expect(
                    (0...1).contains(a.jawOpen) && (-1...1).contains(a.lipSpread) && (0...1).contains(a.lipPress))
            }
        }
    }
}
