import Testing
@testable import Essence2Runtime
@testable import Essence2Authoring

/// include/essence2.h is the C contract; the Swift side keeps each number in one place (StreamFormat,
/// LibraryVersion, the raw values of the enums the C calls take). These tests read the header and check that
/// both say the same, so a change on one side cannot ship without the other.
@Suite struct HeaderAgreementTests {
    /// `#define NAME value` lines of the header whose value is an integer (parenthesised negatives included).
    static let defines: [String: Int] = {
        var values: [String: Int] = [:]
        for line in (HeaderText.contents + "\n" + HeaderText.expression2).split(separator: "\n") where line.hasPrefix("#define ") {
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            guard words.count >= 3 else { continue }
            let literal = String(words[2].filter { $0 != "(" && $0 != ")" })
            if let value = Int(literal) { values[String(words[1])] = value }
        }
        return values
    }()

    @Test func streamConstantsMatchTheHeader() {
        #expect(Self.defines["BE_ESSENCE2_SAMPLE_RATE"] == StreamFormat.sampleRate)
        #expect(Self.defines["BE_ESSENCE2_FPS"] == StreamFormat.framesPerSecond)
        #expect(Self.defines["BE_ESSENCE2_SAMPLES_PER_FRAME"] == StreamFormat.samplesPerFrame)
        #expect(Self.defines["BE_ESSENCE2_RING_SAMPLES"] == StreamFormat.ringSamples)
        #expect(EngineState.ringCapacity == StreamFormat.ringSamples)
        #expect(LipSyncStream.samplesPerFrame == StreamFormat.samplesPerFrame)
        #expect(IdleMotion.framesPerSecond == StreamFormat.framesPerSecond)
    }

    /// include/expression2.h: Expression 2's cadence, frame size and record.
    @Test func expression2ConstantsMatchItsHeader() {
        #expect(Self.defines["BE_EXPRESSION2_FPS"] == FrameCadence.expression2.framesPerSecond)
        #expect(Self.defines["BE_EXPRESSION2_SAMPLES_PER_FRAME"] == FrameCadence.expression2.samplesPerFrame)
        #expect(Self.defines["BE_EXPRESSION2_FRAME_AUDIO_SAMPLES"] == FrameCadence.expression2.samplesPerFrame)
        #expect(Self.defines["BE_EXPRESSION2_WIDTH"] == CharacterAvatarBuilder.defaultSize.width)
        #expect(Self.defines["BE_EXPRESSION2_HEIGHT"] == CharacterAvatarBuilder.defaultSize.height)
        #expect(Self.defines["BE_ESSENCE2_AVATAR_PHOTOREAL"] == 0 && Self.defines["BE_ESSENCE2_AVATAR_CHARACTER"] == 1)
        #expect(FrameCadence.essence2.samplesPerFrame == StreamFormat.samplesPerFrame)
    }

    @Test func versionMatchesTheHeader() {
        #expect(Self.defines["ESSENCE2_VERSION_MAJOR"] == LibraryVersion.major)
        #expect(Self.defines["ESSENCE2_VERSION_MINOR"] == LibraryVersion.minor)
        #expect(Self.defines["ESSENCE2_VERSION_PATCH"] == LibraryVersion.patch)
        #expect("\(LibraryVersion.string)" == "\(LibraryVersion.major).\(LibraryVersion.minor).\(LibraryVersion.patch)")
        #expect(LibraryVersion.number == LibraryVersion.major * 1_000_000 + LibraryVersion.minor * 1_000 + LibraryVersion.patch)
        #expect(HeaderText.contents.contains("((major) * 1000000 + (minor) * 1000 + (patch))"))
    }

    @Test func enumValuesMatchTheHeader() {
        #expect(Self.defines["BE_ESSENCE2_FRAME_IDLE"] == Int(FrameKind.idle.rawValue))
        #expect(Self.defines["BE_ESSENCE2_FRAME_SPEECH"] == Int(FrameKind.speech.rawValue))
        #expect(Self.defines["BE_ESSENCE2_FRAME_RAMP"] == Int(FrameKind.ramp.rawValue))
        #expect(Self.defines["BE_ESSENCE2_MODE_FULL"] == Int(DisplayMode.full.rawValue))
        #expect(Self.defines["BE_ESSENCE2_MODE_HEAD"] == Int(DisplayMode.head.rawValue))
        #expect(Self.defines["BE_ESSENCE2_PACING_REALTIME"] == Int(Pacing.realtime.rawValue))
        #expect(Self.defines["BE_ESSENCE2_PACING_UNPACED"] == Int(Pacing.unpaced.rawValue))
        #expect(Self.defines["BE_ESSENCE2_PACING_AUDIO_CLOCK"] == Int(Pacing.audioClock.rawValue))
        #expect(Self.defines["BE_ESSENCE2_FRAME_AUDIO_SAMPLES"] == StreamFormat.samplesPerFrame)
        #expect(Self.defines["BE_ESSENCE2_LIPSYNC_LEARNED"] == Int(LipSyncModel.learned.rawValue))
        #expect(Self.defines["BE_ESSENCE2_LIPSYNC_V1"] == Int(LipSyncModel.v1.rawValue))
    }

    @Test func headerStatesTheStableReturnCodes() {
        // The thunks' ResultCode lives in the C interface target (linked only into libessence2.so); the C tests
        // check each code through the library. Here: the header keeps the stable values it promised.
        #expect(Self.defines["BE_ESSENCE2_OK"] == 0)
        #expect(Self.defines["BE_ESSENCE2_ERR_ARGUMENT"] == -1)
        #expect(Self.defines["BE_ESSENCE2_ERR_AVATAR"] == -2)
        #expect(Self.defines["BE_ESSENCE2_ERR_FULL"] == -2)
        #expect(Self.defines["BE_ESSENCE2_ERR_MODE"] == -2)
        #expect(Self.defines["BE_ESSENCE2_ERR_REFUSED"] == -3)
        #expect(Self.defines["BE_ESSENCE2_ERR_RENDER"] == -1)
        #expect(Self.defines["BE_ESSENCE2_ERR_STATUS_ARGUMENT"] == -4)
    }
}

/// The text of include/essence2.h.
enum HeaderText {
    static let contents: String = read("essence2.h")
    static let expression2: String = read("expression2.h")

    static func read(_ name: String) -> String {
        guard let bytes = try? BinaryFile.read(path: TestAvatar.repositoryRoot + "/include/" + name, maxSize: 1 << 20) else {
            return ""
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
